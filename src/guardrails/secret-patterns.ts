/**
 * Credential formats that are recognizable by their shape alone. Only high-precision shapes are
 * here (fixed prefixes, lengths, structure): tool results are often source code, and a loose rule
 * such as `key = value` would rewrite ordinary code (`key: string`) that the model then edits.
 * Shapes without a prefix (Discord tokens) are left to the environment-value check.
 */

/** A credential shape and what replaces it (`$1` keeps a captured prefix such as `Bearer `). */
export interface SecretPattern {
  name: string;
  pattern: RegExp;
  replacement: string;
}

/** Replacement text for a redacted secret. */
export const redacted = '[REDACTED]';

/** The shapes; every pattern is global. */
export const secretPatterns: readonly SecretPattern[] = [
  { name: 'private key block', pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, replacement: redacted },
  { name: 'OpenAI / Anthropic key', pattern: /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, replacement: redacted },
  { name: 'GitHub token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b/g, replacement: redacted },
  { name: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, replacement: redacted },
  { name: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, replacement: redacted },
  { name: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replacement: redacted },
  { name: 'Slack app token', pattern: /\bxapp-\d-[A-Za-z0-9-]{10,}/g, replacement: redacted },
  { name: 'AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: redacted },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replacement: redacted },
  { name: 'Telegram bot token', pattern: /\b\d{8,10}:AA[0-9A-Za-z_-]{33}\b/g, replacement: redacted },
  { name: 'Stripe key', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/g, replacement: redacted },
  { name: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, replacement: redacted },
  { name: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replacement: redacted },
  { name: 'bearer token', pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/g, replacement: `$1${redacted}` },
  // A password in a URL (`redis://:hunter2@host`); template placeholders (`${PASS}`) are left alone.
  { name: 'URL password', pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@${}%]{3,}@/gi, replacement: `$1${redacted}@` },
];

/** Replaces every credential shape in `text`; `count` says how many were found. */
export function redactSecretPatterns(text: string): { text: string; count: number } {
  let count = 0;
  let result = text;
  for (const { pattern, replacement } of secretPatterns) {
    result = result.replace(pattern, (...match: unknown[]) => {
      count++;
      return replacement.replace('$1', String(match[1] ?? ''));
    });
  }
  return { text: result, count };
}
