/** One step of a path into a ticket: a key or an array index. */
export type Segment = string | number;

/** A span of the ticket's text. */
export interface Span {
  offset: number;
  length: number;
}

/** A replacement in the ticket's text. */
export interface TextChange extends Span {
  content: string;
}

/** Where the cursor stands in a ticket. */
export interface Cursor {
  /** The path of the value (or key) under the cursor: ['scope', 'write', 0]. */
  path: Segment[];
  /** On a property's name rather than its value. */
  atKey: boolean;
  /** The string under the cursor, if any: its value and its span, quotes included. */
  string?: { value: string } & Span;
}

/**
 * A ticket's text in its format. Every format-specific question the server asks goes through
 * this: where a finding's JSON path sits, what is under the cursor, how to change a value.
 * The schema, the checks and the findings are the core's and know no format.
 */
export interface TicketSource {
  readonly text: string;
  /** The parsed value, as loosely as the format allows (undefined when nothing parses). */
  readonly value: unknown;
  /** The span of the value at a finding's JSON path (`$.scope.read[0]`), or its nearest container. */
  rangeOf(jsonPath: string): Span;
  /** The span of the value at a path, if it is there. */
  spanAt(path: Segment[]): Span | undefined;
  locate(offset: number): Cursor | undefined;
  /** Sets the value at `path`; with `insert`, the last segment is an array index to insert at. */
  set(path: Segment[], value: unknown, insert?: boolean): TextChange[];
  /** A value as this format writes a string literal (what completion inserts). */
  quote(value: string): string;
  /**
   * A whole expectation as a snippet (`${n}` placeholders for its code fields; a field named
   * `name[]` is a list holding one), as this format
   * writes it at `offset`: lines after the first carry their own indentation (insert as is).
   */
  expectationSnippet(kind: string, fields: readonly string[], offset: number): string;
}
