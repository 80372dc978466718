/** The OpenAI-compatible API as a channel. */
export { apiCapabilities, apiPlatform, createApiChannel } from './api-channel.ts';
export type { ApiChannel, ApiChannelOptions } from './api-channel.ts';
export type { ApiTurnEnd } from './api-wire.ts';
export { tooManyWrongTokensResponse, unauthorizedResponse } from './api-errors.ts';
