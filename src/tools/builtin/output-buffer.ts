/**
 * Bounded capture of a stream of text: keeps the start and the end, counts what fell out of the
 * middle. A command that prints gigabytes must not take the gateway's memory with it.
 */
export class OutputBuffer {
  private head = '';
  private tail: string[] = [];
  private tailLength = 0;
  private omitted = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  /** Keeps at most `maxChars` characters (half from the start, half from the end). */
  constructor(maxChars: number) {
    this.headLimit = Math.floor(maxChars / 2);
    this.tailLimit = maxChars - this.headLimit;
  }

  /** Adds the next piece of output. */
  append(text: string): void {
    if (this.tailLength === 0 && this.head.length < this.headLimit) {
      const room = this.headLimit - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    this.tail.push(text);
    this.tailLength += text.length;
    // Collapsing only at twice the limit keeps appends amortized constant time.
    if (this.tailLength > 2 * this.tailLimit) {
      const joined = this.tail.join('');
      const kept = joined.slice(joined.length - this.tailLimit);
      this.omitted += joined.length - kept.length;
      this.tail = [kept];
      this.tailLength = kept.length;
    }
  }

  /** Everything kept, with a marker where the middle was dropped. */
  toString(): string {
    let tail = this.tail.join('');
    if (tail.length > this.tailLimit) {
      this.omitted += tail.length - this.tailLimit;
      tail = tail.slice(tail.length - this.tailLimit);
      this.tail = [tail];
      this.tailLength = tail.length;
    }
    if (this.omitted === 0) return this.head + tail;
    return `${this.head}\n[... ${this.omitted} characters of output omitted ...]\n${tail}`;
  }
}
