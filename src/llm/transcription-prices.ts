/**
 * What speech-to-text models cost: OpenAI bills them by the minute of audio (public prices, USD),
 * not by tokens, so they sit beside the token-priced catalog rather than in it. A model missing
 * here (a local whisper server's) costs nothing.
 */

/** USD per minute of audio, by model id. */
const perMinute: Readonly<Record<string, number>> = {
  'gpt-4o-mini-transcribe': 0.003,
  'gpt-4o-transcribe': 0.006,
  'whisper-1': 0.006,
};

/** The price of a minute of audio with `model`, or undefined when it is not known. */
export function transcriptionPricePerMinute(model: string): number | undefined {
  return perMinute[model.trim().toLowerCase()];
}

/** What `seconds` of audio cost with `model`, in USD (0 for a model without a price). */
export function transcriptionCost(model: string, seconds: number): number {
  const price = transcriptionPricePerMinute(model);
  return price === undefined ? 0 : (Math.max(0, seconds) / 60) * price;
}
