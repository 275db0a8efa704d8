// ptf.d.ts — the JavaScript API of ptfsh's Process Table Functions.
//
// Put this file beside your function (or reference it with
// /// <reference path="ptf.d.ts" />) and declare the function as
//
//   export default {
//     output: "ROW<url STRING, click_count BIGINT>",
//     args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
//     state: { clicks: { default: { count: 0 } } },
//     eval(ctx, { clicks }, { input }) { ... },
//   } satisfies PTF<{ clicks: { count: number } }, { input: Row }>;
//
// The declaration mirrors Flink's annotations: output is @DataTypeHint,
// args are @ArgumentHint, state entries are @StateHint, eval and onTimer are
// the methods of a ProcessTableFunction, changelog is ChangelogFunction.

/** A SQL type in Flink's spelling: "INT", "STRING NOT NULL", "ROW<a INT, b STRING>", "MAP<STRING, BIGINT>", ... */
type SqlType = string;

/** Flink's ArgumentTrait names. No table trait makes a scalar argument. */
type ArgumentTrait =
  | "ROW_SEMANTIC_TABLE"
  | "SET_SEMANTIC_TABLE"
  | "OPTIONAL_PARTITION_BY"
  | "PASS_COLUMNS_THROUGH"
  | "REQUIRE_ON_TIME"
  | "SUPPORT_UPDATES"
  | "REQUIRE_UPDATE_BEFORE"
  | "REQUIRE_FULL_DELETE";

/** One argument (@ArgumentHint). The names on_time and uid are reserved. */
interface ArgumentDecl {
  name: string;
  /** Table traits; none (or ["SCALAR"]) makes a scalar argument. */
  traits?: ArgumentTrait[] | ["SCALAR"];
  /** Required for a scalar argument; a table argument may declare a ROW<...> type (columns map by position). */
  type?: SqlType;
  /** An optional argument may be omitted; it is null then. */
  optional?: boolean;
}

/**
 * A duration in Flink's syntax: a whole number and a unit, "1 hour", "5 days",
 * "10 s", "500 ms", "0" (disables TTL); a number is milliseconds.
 */
type Duration = string | number;

/** One state entry (@StateHint). */
type StateDecl =
  | {
      kind?: "value";
      /** The value a new key starts with (deep-copied per key). Without one: {} or, with a ROW type, an object of nulls. */
      default?: unknown;
      /** A ROW<...> type: the entry starts as an object with these fields, all null. */
      type?: SqlType;
      ttl?: Duration;
    }
  | {
      /** Flink's ListView: eval receives a ListView, empty for a new key. */
      kind: "list";
      /** ARRAY<T>, the element type (required). */
      type: SqlType;
      /** Applies to each element, counted from when it was added. */
      ttl?: Duration;
    }
  | {
      /** Flink's MapView: eval receives a MapView, empty for a new key. */
      kind: "map";
      /** MAP<K, V>, the key and value types (required). */
      type: SqlType;
      /** Applies to each entry, counted from when it was put. */
      ttl?: Duration;
    };

/**
 * Flink's ListView: list state whose elements live in the state store and
 * are read and written one at a time, so it may outgrow memory. Elements
 * convert by the declared ARRAY<T> type. null and undefined elements throw
 * a TypeError ("List views don't support null values."). Valid only during
 * the call it was given to, as are its iterators.
 */
interface ListView<T = any> extends Iterable<T> {
  /** Flink's get(): the elements, read lazily as they are iterated. */
  get(): Iterable<T>;
  /** The element at index i (a RangeError beyond the end). */
  get(i: number): T;
  /** Flink's getList(): every element in an Array (reads the whole list). */
  getList(): T[];
  /** Flink's setList(): replaces the elements. */
  setList(items: Iterable<T>): void;
  add(value: T): void;
  /** Adds the elements in order; with a null among them it adds none and throws. */
  addAll(items: Iterable<T>): void;
  clear(): void;
  size(): number;
  isEmpty(): boolean;
}

/**
 * Flink's MapView: map state whose entries live in the state store and are
 * read and written one at a time, so it may outgrow memory. Keys and values
 * convert by the declared MAP<K, V> type; iteration is in key order
 * (numbers by value, strings by their UTF-8 bytes). A null or undefined key
 * throws a TypeError ("Map views don't support null keys."); values may be
 * null. Valid only during the call it was given to, as are its iterators.
 */
interface MapView<K = any, V = any> extends Iterable<[K, V | null]> {
  /** The value of key, or null when the map has no such key (as Flink's). */
  get(key: K): V | null;
  put(key: K, value: V | null): void;
  /** Puts every entry; with a null key among them it puts none and throws. */
  putAll(entries: Map<K, V | null> | Record<string, V | null>): void;
  remove(key: K): void;
  contains(key: K): boolean;
  keys(): IterableIterator<K>;
  values(): IterableIterator<V | null>;
  entries(): IterableIterator<[K, V | null]>;
  /** Flink's getMap(): every entry in a Map (reads the whole map). */
  getMap(): Map<K, V | null>;
  /** Flink's setMap(): replaces the entries. */
  setMap(entries: Map<K, V | null> | Record<string, V | null>): void;
  clear(): void;
  /** The number of entries (reads them all). */
  size(): number;
  isEmpty(): boolean;
}

/** Flink's RowKind; a global. String(kind) is the enum name ("UPDATE_AFTER"). */
interface RowKind {
  /** "INSERT" | "UPDATE_BEFORE" | "UPDATE_AFTER" | "DELETE" */
  toString(): string;
  name(): string;
  /** "+I" | "-U" | "+U" | "-D" */
  shortString(): string;
  /** 0 to 3, Flink's byte value. */
  toByteValue(): number;
}

declare const RowKind: {
  readonly INSERT: RowKind;
  readonly UPDATE_BEFORE: RowKind;
  readonly UPDATE_AFTER: RowKind;
  readonly DELETE: RowKind;
  values(): RowKind[];
};

/** Where a RowKind is expected, its names work too: "+U" or "UPDATE_AFTER". */
type RowKindLike = RowKind | "+I" | "-U" | "+U" | "-D" | "INSERT" | "UPDATE_BEFORE" | "UPDATE_AFTER" | "DELETE";

/**
 * A row of a table argument (Flink's Row). Fields read like properties by
 * column name (row.url) and through Flink's methods. Rows are read-only; a
 * row kept after the call (in state, say) keeps its values.
 *
 * Values: numbers for INT/BIGINT/FLOAT/DOUBLE/DECIMAL (a BIGINT beyond
 * ±2^53 is a BigInt), string, boolean, Date for TIMESTAMP, TIMESTAMP_LTZ and
 * DATE, milliseconds for INTERVAL DAY TO SECOND and TIME, months for
 * INTERVAL YEAR TO MONTH, Array, Map, a nested Row for ROW, an Array of
 * names for DESCRIPTOR, Uint8Array for BYTES, null for NULL.
 */
interface Row {
  readonly [column: string]: any;
  /** The field at position i or named name. */
  getField(i: number | string): any;
  getFieldAs<T = any>(i: number | string): T;
  getKind(): RowKind;
  getArity(): number;
  getFieldNames(): string[];
  /** Flink's Row.toString: "+I[Bob, 12]". */
  toString(): string;
}

/** Flink's ChangelogMode. String(mode) is "[INSERT, UPDATE_AFTER, ~DELETE]". */
interface ChangelogMode {
  /** Enum names of the kinds, in Flink's order. */
  readonly kinds: Array<"INSERT" | "UPDATE_BEFORE" | "UPDATE_AFTER" | "DELETE">;
  /** Deletes carry only the key (printed ~DELETE). */
  readonly keyOnlyDeletes: boolean;
  contains(kind: RowKindLike): boolean;
  isInsertOnly(): boolean;
  toString(): string;
}

/** A data type; String(type) is Flink's summary string: ROW<`name` VARCHAR(5) NOT NULL, ...>. */
interface DataType {
  readonly fields: Array<{ name: string; type: string }>;
  toString(): string;
}

/** Flink's TableSemantics of a table argument. */
interface TableSemantics {
  dataType(): DataType;
  /** Column indexes; String() prints [0, 1] as Java's int[] does in Flink's tests. */
  partitionByColumns(): number[];
  orderByColumns(): number[];
  orderByDirections(): Array<"ASCENDING" | "DESCENDING">;
  /** Index of the on_time column, or -1. */
  timeColumn(): number;
  /** The changelog mode the function receives on this argument. */
  changelogMode(): ChangelogMode;
}

/**
 * Flink's TimeContext in epoch milliseconds. Long.MAX_VALUE (the watermark
 * at the end of the input) is Number.MAX_SAFE_INTEGER; a time argument of
 * Number.MAX_SAFE_INTEGER or more means Long.MAX_VALUE.
 */
interface TimeContext {
  /** The current row's on_time, or the firing timer's time; null without on_time. */
  time(): number | null;
  /** The operator's watermark; null before the first. */
  currentWatermark(): number | null;
  /** The watermark of the input that delivered the row; null inside onTimer. */
  tableWatermark(): number | null;
  /** Registers an unnamed timer, or the named one (replacing an earlier one of that name). */
  registerOnTime(time: number | Date | bigint): void;
  registerOnTime(name: string, time: number | Date | bigint): void;
  /** Removes the named timer, or the unnamed one at a time. */
  clearTimer(nameOrTime: string | number | Date | bigint): void;
  clearAllTimers(): void;
}

/** Flink's ProcessTableFunction.Context. Valid only during the call it was given to. */
interface Context {
  /**
   * Emits a row: an object by column name, an array in declared order, a
   * bare value for a scalar output type (or a ROW with one column), or a
   * Row. A value of the wrong type is an error naming the column.
   */
  collect(value: unknown, kind?: RowKindLike): void;
  /** Clears the entry when the call returns: the next call sees a fresh default (an empty list or map view). */
  clearState(name: string): void;
  clearAllState(): void;
  clearAllTimers(): void;
  /** clearAllState() and clearAllTimers(). */
  clearAll(): void;
  /** In onTimer, the name of the firing timer; null for an unnamed one. */
  currentTimer(): string | null;
  /**
   * Says that eval drops its row on purpose, and why ("late", "duplicate"):
   * EXPLAIN WHY counts such rows by reason and the trace shows them. It
   * changes nothing else (a ptfsh extension; on Flink the export ignores it).
   */
  noteDropped(reason?: string): void;
  tableSemanticsFor(argument: string): TableSemantics;
  /** The output changelog mode of this call. */
  getChangelogMode(): ChangelogMode;
  timeContext(): TimeContext;
}

/** What a changelog function receives (Flink's ChangelogContext). */
interface ChangelogContext {
  /** The changelog mode of the i-th table argument. */
  getTableChangelogMode(i: number): ChangelogMode;
  /** The mode the consumer requires (keyOnlyDeletes tells if it accepts deletes by key). */
  getRequiredChangelogMode(): ChangelogMode;
}

type ChangelogName = "insert-only" | "retract" | "upsert" | "all";

/**
 * A scalar function (Flink's ScalarFunction), called wherever an
 * expression stands (SELECT f(a, b) FROM t): typed scalar arguments in,
 * in declared order (NULL as null), one value of the output type out.
 */
interface ScalarFunction {
  kind: "scalar";
  /** Scalar arguments only, each with a type; optional ones may be left out (null). */
  args?: ArgumentDecl[];
  /** The result's type: "DOUBLE", "STRING", "ROW<a INT, b STRING>", ... */
  output: SqlType;
  eval(...args: any[]): unknown;
}

/**
 * A PTF declaration: the default export of a function file (or, for a
 * plain script or an inline function, the value of its last expression).
 * S is the state object eval receives, A the arguments object.
 */
interface PTF<S = Record<string, any>, A = Record<string, any>> {
  /** A process table function (the default); "scalar" makes a ScalarFunction instead. */
  kind?: "process-table";
  /** The output type: ROW<...> gives named columns; any other type one column EXPR$0. */
  output: SqlType;
  args?: ArgumentDecl[];
  /** State entries in order: name → declaration. */
  state?: Record<string, StateDecl>;
  /**
   * Called for each input row (once for a function without table
   * arguments). state has one property per entry, live for the current
   * key: change a value entry in place or assign a new value; a list or
   * map entry is a ListView or MapView, changed through its methods. args has one property
   * per argument: scalars, and the row of the table being processed
   * (the other table arguments are null).
   */
  eval(ctx: Context, state: S, args: A): void;
  /**
   * Called when a timer fires; every table argument is null, and reading a
   * scalar argument throws (Flink's onTimer takes only the context and the
   * state entries): keep what onTimer needs in state.
   */
  onTimer?(ctx: Context, state: S, args: A): void;
  /** Flink's ChangelogFunction: the modes this function emits (default insert-only). */
  changelog?: ChangelogName | ((cctx: ChangelogContext) => ChangelogName | { kinds: string[]; keyOnlyDeletes?: boolean });
}
