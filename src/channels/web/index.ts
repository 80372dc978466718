/** The local web chat channel. */
export { createWebChannel, webCapabilities } from './web-channel.ts';
export type { WebChannel, WebChannelOptions } from './web-channel.ts';
export type { WebEvent } from './web-events.ts';
export { pageStyle } from './page-style.ts';
