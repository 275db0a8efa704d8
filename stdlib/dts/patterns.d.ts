/**
 * ptfsh/patterns: building blocks of stream processing. Each function
 * returns a PTF declaration (export it as default, or call its eval and
 * onTimer from your own). Every pattern needs set semantics and on_time:
 *   SELECT * FROM f(input => TABLE t PARTITION BY k ORDER BY ts, on_time => DESCRIPTOR(ts))
 */
declare module "ptfsh/patterns" {
  /** "30 s", "10 min", "1 hour", "2 days", "500 ms", or milliseconds. */
  type PatternDuration = string | number;

  /** What every pattern takes besides its own options. */
  interface PatternOptions<Out> {
    /** The state entry's name (default: the pattern's), for two patterns in one function. */
    stateName?: string;
    /** Collects the pattern's result differently (row: the input row, null in onTimer); set output to what it collects. */
    emit?: (ctx: Context, out: Out, row: Row | null) => void;
    /** The output type when emit collects something else. */
    output?: SqlType;
  }

  interface DedupOptions extends PatternOptions<Record<string, unknown> & { window_end: Date }> {
    /** The ROW type of the input columns to emit (besides PARTITION BY's) and window_end: timers rule out pass-through. */
    output: SqlType;
    /** Rows of a key less than this from the kept row are duplicates (default 1 hour). */
    within?: PatternDuration;
    /** "arrival" (default): the first row to arrive, at once; "time": the earliest, once the watermark reaches it, as Flink's deduplication. */
    by?: "arrival" | "time";
  }
  /** by: "arrival" keeps kept; by: "time" keeps last and the fields of TimeOrderState. */
  interface DedupState extends Partial<TimeOrderState> { kept?: number | null; last?: number | null; dropped: number }
  interface Pending { t: number; i: number; row: Record<string, unknown> }
  interface TimeOrderState { pending: Pending[]; fired: number | null; late: number; seq: number }
  /** What timeOrder returns: its state fields, and eval and onTimer over the pattern's state entry. */
  interface TimeOrder {
    state: TimeOrderState;
    eval(ctx: Context, s: TimeOrderState, input: Row): void;
    onTimer(ctx: Context, s: TimeOrderState): void;
  }

  interface SessionizeOptions extends PatternOptions<{ session_start: Date; session_end: Date; events: number } & Record<string, unknown>> {
    /** Rows at most gap apart form one session, as SESSION windows (default 30 min). */
    gap?: PatternDuration;
    /** Columns computed over each session's rows: { total: "sum(amount)" }; count(*), count(col), sum, min, max, avg. */
    aggregates?: Record<string, string>;
  }
  interface Accumulator { n: number; v: unknown }
  interface OpenSession { start: number; end: number; events: number; acc: Accumulator[] }
  interface SessionState { sessions: OpenSession[]; late: number }

  interface AbsenceOptions extends PatternOptions<{ last_seen: Date; silent_at: Date }> {
    /** Alert after this much event time without a row (default 1 hour). */
    timeout?: PatternDuration;
    /** Alert also for a deadline that only the end of input passed (default false). */
    alertAtEnd?: boolean;
  }
  interface AbsenceState { last: number | null }

  interface ThresholdOptions extends PatternOptions<{ alert: "raised" | "cleared"; alert_value: number }> {
    /** The numeric column to watch. */
    value: string;
    /** Raise when the value goes above this. */
    above: number;
    /** Clear (and re-arm) when the value goes below this (default: above). */
    reset?: number;
  }
  interface ThresholdState { raised: boolean; last: number | null; outOfOrder: number }

  interface ChangeOptions extends PatternOptions<{ previous: string | null }> {
    /** The column whose changes to report. */
    value: string;
    /** Emit the first row of a key too, as a change from null (default false). */
    emitFirst?: boolean;
  }
  interface ChangeState { seen: boolean; value: string | null; last: number | null; outOfOrder: number }

  interface RateLimitOptions extends PatternOptions<Record<string, unknown> & { window_start: Date }> {
    /** The ROW type of the input columns to emit (besides PARTITION BY's) and window_start: timers rule out pass-through. */
    output: SqlType;
    /** Rows let through per window (default 1). */
    max?: number;
    /** The window (default 1 min). */
    per?: PatternDuration;
  }
  interface RateState { counts: Record<string, number>; dropped: number }

  interface TopNOptions extends PatternOptions<{ window_end: Date; place: number; label: string | null; score: number }> {
    /** How many rows per window (default 3). */
    n?: number;
    /** The numeric column to rank by, largest first. */
    value: string;
    /** A column to name each row by in the output. */
    label?: string;
    /** The window (default 1 hour). */
    size?: PatternDuration;
  }
  interface TopNEntry { v: number; t: number; i: number; label: string | null }
  interface TopNState { windows: Record<string, TopNEntry[]>; late: number; seq: number }

  interface EnrichOptions extends PatternOptions<Record<string, unknown>> {
    /** The ROW type of the columns to emit, of the input row and of the reference version, by name. */
    output: SqlType;
    /** Drop a row that no version was valid for (JOIN), instead of emitting it with null fields (LEFT JOIN). */
    inner?: boolean;
  }
  interface Held { t: number; row: Record<string, unknown> }
  interface EnrichState { held: Held[]; versions: Held[]; prunedAt: number | null }

  /** An aggregate of options.aggregates, as aggregates() reads it. */
  interface Aggregate {
    name: string;
    type: SqlType;
    empty(): Accumulator;
    add(acc: Accumulator, row: Row | null): Accumulator;
    merge(a: Accumulator, b: Accumulator): Accumulator;
    result(acc: Accumulator): unknown;
  }

  /** A pattern's declaration: state S under its state name, one table argument. */
  type PatternPTF<S> = PTF<Record<string, S>, { input: Row }>;

  /** Keeps a key's first row, drops rows within `within` of it. */
  export function dedup(options: DedupOptions): PatternPTF<DedupState>;
  /** One row per session of a key's rows less than `gap` apart. */
  export function sessionize(options?: SessionizeOptions): PatternPTF<SessionState>;
  /** An alert when a key has had no row for `timeout`. */
  export function absence(options?: AbsenceOptions): PatternPTF<AbsenceState>;
  /** 'raised' above `above`, 'cleared' below `reset`. */
  export function thresholdWithReset(options: ThresholdOptions): PatternPTF<ThresholdState>;
  /** A row when a key's value changes. */
  export function changeDetection(options: ChangeOptions): PatternPTF<ChangeState>;
  /** At most `max` rows of a key per `per`. */
  export function rateLimit(options: RateLimitOptions): PatternPTF<RateState>;
  /** The n largest values of a key per window of `size`. */
  export function topN(options: TopNOptions): PatternPTF<TopNState>;
  /** Each input row with the reference version valid at its time (an event-time temporal join). */
  export function enrich(options: EnrichOptions): PTF<Record<string, EnrichState>, { input: Row | null; reference: Row | null }>;
  /** A key's rows in event-time order: process gets each once the watermark reaches it; rows at or before the last time read are late. */
  export function timeOrder(name: string, pattern: string, process: (ctx: Context, s: any, row: Record<string, unknown>, t: number) => void): TimeOrder;
  /** Reads { name: "sum(col)", ... } into accumulators; pattern names the caller in errors. */
  export function aggregates(spec: Record<string, string> | undefined, pattern: string): Aggregate[];
  /** Milliseconds of a duration ("10 min"); what names the option in an error. */
  export function duration(d: PatternDuration, what: string): number;
}
