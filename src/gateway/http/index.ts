/** The gateway's network edge: host and origin checks, exposure, and the web chat's login. */
export { edgeBanner } from './edge-banner.ts';
export type { EdgeBannerOptions } from './edge-banner.ts';
export { canonicalHost, hostNameOf, isLoopbackHost, isWildcardAddress } from './host-name.ts';
export { hostGuard, hostRefusal } from './host-guard.ts';
export { createHostRule } from './host-rule.ts';
export type { HostRule, HostRuleOptions } from './host-rule.ts';
export { hostAndPort, listenScope, localGatewayUrl, webChatUrl } from './listen-address.ts';
export { LoginRateLimiter } from './login-rate-limiter.ts';
export { networkEdge } from './network-edge.ts';
export type { NetworkEdgeOptions } from './network-edge.ts';
export { originGuard, originRefusal } from './origin-guard.ts';
export { resolveExposure, webhookSources } from './resolve-exposure.ts';
export type { Exposure, ExposureConfig, ExposureSources } from './resolve-exposure.ts';
export { SessionSigner, sessionLifetimeMs } from './session-signer.ts';
export { loadWebToken, webTokenPath, webTokenVariable } from './web-token.ts';
export type { WebToken, WebTokenSource } from './web-token.ts';
export { logoutPath, sessionCookieName, webLogin } from './web-login.ts';
