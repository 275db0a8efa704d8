/**
 * ptfsh/ptf: definePTF types ctx.collect by the declared output type, so
 * that a misspelt or missing column, or a value of the wrong type, is an
 * error in an editor and in ptfsh check:
 *   export default definePTF({ output: "ROW<url STRING, n BIGINT NOT NULL>", eval(ctx) {
 *     ctx.collect({ url: "x", n: 1 });   // ctx.collect({ ur: "x" }) is TS2353
 *   } });
 * Columns that are nullable may be left out (they are NULL); NOT NULL
 * ones are required. An array in column order is accepted as well.
 */
declare module "ptfsh/ptf" {
  /** Trim removes spaces at both ends of a string type. */
  type PtfTrim<S extends string> = S extends ` ${infer R}` ? PtfTrim<R> : S extends `${infer R} ` ? PtfTrim<R> : S;

  /** PtfSplit splits S at the commas outside <...> and (...). */
  type PtfSplit<S extends string, Cur extends string = "", D extends 0[] = [], Out extends string[] = []> =
    S extends `${infer C}${infer Rest}`
      ? C extends "<" | "("
        ? PtfSplit<Rest, `${Cur}${C}`, [...D, 0], Out>
        : C extends ">" | ")"
          ? PtfSplit<Rest, `${Cur}${C}`, D extends [0, ...infer E extends 0[]] ? E : [], Out>
          : C extends ","
            ? D extends [] ? PtfSplit<Rest, "", [], [...Out, PtfTrim<Cur>]> : PtfSplit<Rest, `${Cur}${C}`, D, Out>
            : PtfSplit<Rest, `${Cur}${C}`, D, Out>
      : PtfTrim<Cur> extends "" ? Out : [...Out, PtfTrim<Cur>];

  /** PtfNotNull tells "T NOT NULL" (any case) from T. */
  type PtfNotNull<T extends string> =
    PtfTrim<T> extends `${infer X} ${infer N} ${infer M}`
      ? Uppercase<`${N} ${M}`> extends "NOT NULL" ? [PtfTrim<X>, true]
      : PtfTrim<T> extends `${infer Y} NOT NULL` | `${infer Y} not null` ? [PtfTrim<Y>, true] : [PtfTrim<T>, false]
      : [PtfTrim<T>, false];

  /** PtfJS is the JS value a column of SQL type T takes in ctx.collect. */
  type PtfJS<T extends string> =
    PtfNotNull<T> extends [infer B extends string, infer NN] ? (NN extends true ? PtfBase<B> : PtfBase<B> | null) : unknown;

  type PtfBase<T extends string> =
    T extends `${infer H}<${infer Inner}>`
      ? Uppercase<PtfTrim<H>> extends "ROW" ? PtfRow<Inner>
      : Uppercase<PtfTrim<H>> extends "ARRAY" ? Array<PtfJS<Inner>>
      : Uppercase<PtfTrim<H>> extends "MAP" | "MULTISET"
        ? PtfSplit<Inner> extends [infer K extends string, infer V extends string] ? Map<PtfJS<K>, PtfJS<V>> | Record<string, PtfJS<V>> : unknown
      : unknown
      : PtfScalar<Uppercase<T extends `${infer H}(${string}` ? PtfTrim<H> : T>>;

  type PtfScalar<U extends string> =
    U extends "BOOLEAN" | "BOOL" ? boolean
    : U extends "TINYINT" | "SMALLINT" | "INT" | "INTEGER" | "FLOAT" | "DOUBLE" | "REAL" | "DOUBLE PRECISION" ? number
    : U extends "BIGINT" ? number | bigint
    : U extends "DECIMAL" | "DEC" | "NUMERIC" ? number | bigint | string
    : U extends "STRING" | "VARCHAR" | "CHAR" | "CHARACTER" ? string
    : U extends "BYTES" | "BINARY" | "VARBINARY" ? Uint8Array
    : U extends "DATE" | "TIME" | "TIMESTAMP" | "TIMESTAMP_LTZ" | `TIMESTAMP${string}` | `TIME ${string}` ? Date | number | string
    : unknown;

  /** PtfFields turns ["a INT", "b STRING NOT NULL"] into an object type. */
  type PtfField<F extends string> = PtfTrim<F> extends `\`${infer N}\` ${infer T}` ? [N, T] : PtfTrim<F> extends `${infer N} ${infer T}` ? [N, T] : never;
  type PtfRow<Inner extends string> = PtfObject<PtfSplit<Inner>>;
  type PtfObject<Fs extends string[]> =
    { [F in Fs[number] as PtfField<F> extends [infer N extends string, infer T extends string] ? (PtfNotNull<T>[1] extends true ? N : never) : never]:
        PtfField<F> extends [string, infer T extends string] ? PtfJS<T> : never } &
    { [F in Fs[number] as PtfField<F> extends [infer N extends string, infer T extends string] ? (PtfNotNull<T>[1] extends true ? never : N) : never]?:
        PtfField<F> extends [string, infer T extends string] ? PtfJS<T> : never };

  /** PtfCollect is what ctx.collect takes for an output type O. */
  type PtfCollect<O extends string> =
    PtfTrim<O> extends `${infer H}<${infer Inner}>`
      ? Uppercase<PtfTrim<H>> extends "ROW" ? PtfRow<Inner> | unknown[] : PtfJS<O>
      : PtfJS<O>;

  /** Context whose collect takes the output type O. */
  type TypedContext<O extends string> = Omit<Context, "collect"> & {
    collect(value: PtfCollect<O>, kind?: RowKindLike): void;
  };

  /** PtfWiden turns the literal types of a default value into their kinds (0 into number). */
  type PtfWiden<T> =
    T extends number ? number
    : T extends string ? string
    : T extends boolean ? boolean
    : T extends bigint ? bigint
    : T extends readonly (infer E)[] ? PtfWiden<E>[]
    : T extends Date | Map<any, any> | Set<any> | Uint8Array ? T
    : T extends object ? { -readonly [K in keyof T]: PtfWiden<T[K]> }
    : T;

  /** PtfStateOf is the state object eval receives, from the state declarations. */
  type PtfStateOf<St> = {
    -readonly [K in keyof St]:
      St[K] extends { kind: "list"; type: infer T extends string } ? ListView<PtfListElem<T>>
      : St[K] extends { kind: "list" } ? ListView
      : St[K] extends { kind: "map"; type: infer T extends string } ? PtfMapView<T>
      : St[K] extends { kind: "map" } ? MapView
      : St[K] extends { default: infer D } ? PtfWiden<D>
      : St[K] extends { type: infer T extends string } ? PtfCollect<T> & Record<string, any>
      : any;
  };
  type PtfListElem<T extends string> = PtfBase<PtfTrim<T>> extends Array<infer E> ? E : any;
  type PtfMapView<T extends string> = PtfTrim<T> extends `${infer H}<${infer Inner}>`
    ? PtfSplit<Inner> extends [infer K extends string, infer V extends string] ? MapView<PtfJS<K>, PtfJS<V>> : MapView
    : MapView;

  /** PtfArgsOf is the args object eval receives, from the argument declarations. */
  type PtfArgsOf<Ar> = Ar extends readonly any[]
    ? {
        [E in Ar[number] as E extends { name: infer N extends string } ? N : never]:
          E extends { traits: readonly (infer T)[] }
            ? [T] extends ["SCALAR"] ? (E extends { type: infer Ty extends string } ? PtfJS<Ty> : any)
            : Row
          : E extends { type: infer Ty extends string } ? PtfJS<Ty> : any;
      }
    : Record<string, any>;

  /** A PTF declaration whose eval and onTimer collect rows of its output type. */
  type TypedPTF<O extends string, St, Ar> = Omit<PTF, "output" | "state" | "args" | "eval" | "onTimer"> & {
    output: O;
    state?: St;
    args?: Ar;
    eval(ctx: TypedContext<O>, state: PtfStateOf<St>, args: PtfArgsOf<Ar>): void;
    onTimer?(ctx: TypedContext<O>, state: PtfStateOf<St>, args: PtfArgsOf<Ar>): void;
  };

  /**
   * Returns decl as it is. Its type reads the declaration: ctx.collect takes
   * rows of the output type, state has the shape of each entry's default
   * (or its ROW type; list and map entries are ListView and MapView), and
   * args has a Row for each table argument and the declared type of each
   * scalar one.
   */
  export function definePTF<const O extends string, const St extends Record<string, StateDecl> = {}, const Ar extends readonly ArgumentDecl[] = []>(
    decl: TypedPTF<O, St, Ar>,
  ): PTF;
}
