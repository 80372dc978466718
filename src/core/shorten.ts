/** `text` cut to at most `max` characters, an ellipsis marking the cut. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
