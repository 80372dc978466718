/**
 * Files of a Slack message as neutral {@link Attachment}s. Nothing is fetched until `download()`:
 * then `url_private_download` is fetched with the bot token as a Bearer header (the token is sent
 * only to Slack's file host or the Web API's own origin). Slack answers a request it does not
 * authorise with a redirect to its sign-in page, so redirects are failures, not followed.
 */
import { cappedBytes, maxInboundFileBytes } from '../capped-bytes.ts';
import { DeliveryError, type Attachment } from '../types.ts';

/** The fields of a Slack file object that matter here. */
export interface SlackFile {
  id: string;
  name?: string | null;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  /** `slack_audio`: a clip recorded in Slack (the person spoke it). */
  subtype?: string;
  /** A recording's length, in milliseconds. */
  duration_ms?: number;
}

/** Fetches a Slack file's bytes from its private URL, at most `maxBytes`. */
export type DownloadFile = (url: string, file: SlackFile, maxBytes?: number) => Promise<Uint8Array>;

/** Where a file is fetched from: its download URL, else its private URL (none: it is not taken). */
function urlOf(file: SlackFile): string | undefined {
  return file.url_private_download ?? file.url_private;
}

/**
 * The private URLs of a message's `files`, in the order of {@link attachmentsOf}'s attachments:
 * what the Worker keeps with the message to fetch them later (the URLs hold no token).
 */
export function fileRefsOf(files: readonly SlackFile[] | undefined): string[] {
  return (files ?? []).flatMap((file) => urlOf(file) ?? []);
}

/** The attachments of a message's `files` (files without a private URL left out). */
export function attachmentsOf(files: readonly SlackFile[] | undefined, download: DownloadFile): Attachment[] {
  return (files ?? []).flatMap((file) => {
    const url = urlOf(file);
    if (url === undefined) return [];
    const mediaType = file.mimetype || 'application/octet-stream';
    return [{
      kind: mediaType.startsWith('image/') ? 'image' : 'file',
      mediaType,
      ...(file.name ? { name: file.name } : {}),
      ...(file.size !== undefined ? { size: file.size } : {}),
      ...recordingOf(file, mediaType),
      download: (options) => download(url, file, options?.maxBytes ?? maxInboundFileBytes),
    } satisfies Attachment];
  });
}

/**
 * A clip recorded in Slack as a voice note, any other `audio/*` file as audio, each with its length
 * when Slack gives it (the gateway transcribes them); nothing for other files.
 */
function recordingOf(file: SlackFile, mediaType: string): Pick<Attachment, 'recording'> {
  const clip = file.subtype === 'slack_audio';
  if (!clip && !mediaType.startsWith('audio/')) return {};
  const seconds = typeof file.duration_ms === 'number' ? file.duration_ms / 1000 : undefined;
  return { recording: { kind: clip ? 'voice' : 'audio', ...(seconds !== undefined && { seconds }) } };
}

/** Options of {@link createFileDownloader}. */
export interface FileDownloaderOptions {
  botToken: string;
  /** Origins that may receive the token (Slack's file host and the Web API's origin). */
  trustedOrigins: readonly string[];
}

/**
 * A {@link DownloadFile} sending the bot token to trusted origins only, reading at most `maxBytes`
 * (default 20 MB; a larger file fails with a `FileTooLargeError`), other failures as
 * {@link DeliveryError}s.
 */
export function createFileDownloader(options: FileDownloaderOptions): DownloadFile {
  return async (url, file, maxBytes = maxInboundFileBytes) => {
    const label = `Slack file download failed (${file.id})`;
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      throw new DeliveryError(`${label}: not a URL`, { retryable: false });
    }
    if (!options.trustedOrigins.includes(origin)) throw new DeliveryError(`${label}: ${origin} is not a Slack file host`, { retryable: false });
    let response: Response;
    try {
      response = await fetch(url, { headers: { authorization: `Bearer ${options.botToken}` }, redirect: 'manual' });
    } catch (error) {
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new DeliveryError(`${label}: network error: ${reason}`, { retryable: true });
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      const refused = response.status >= 300 && response.status < 400 ? ' (redirected: the token may lack files:read)' : '';
      throw new DeliveryError(`${label}: HTTP ${response.status}${refused}`, { retryable: response.status === 429 || response.status >= 500 });
    }
    return cappedBytes(response, maxBytes, `Slack file ${file.id}`);
  };
}
