/**
 * Recordings as each platform hands them over, marked for the gateway to transcribe: Telegram's
 * voice notes, audio and round video notes, Slack's recorded clips and audio files, Discord's voice
 * messages and audio files, each with its length where the platform gives it.
 */
import type { APIAttachment } from 'discord.js';
import type { Message } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { attachmentsOf as discordAttachments } from '../../src/channels/discord/attachments.ts';
import { attachmentsOf as slackAttachments } from '../../src/channels/slack/attachments.ts';
import { filesOf } from '../../src/channels/telegram/attachments.ts';

const none = async () => new Uint8Array(0);

describe('recordings as the platforms send them', () => {
  it('Telegram: a voice note, an audio file and a video note, with their lengths; a plain video is no recording', () => {
    const base = { message_id: 12, date: 0, chat: { id: 1, type: 'private', first_name: 'A' } };
    const voice = filesOf({ ...base, voice: { file_id: 'v', file_unique_id: 'uv', duration: 42, mime_type: 'audio/ogg', file_size: 900 } } as Message);
    expect(voice).toEqual([{ kind: 'file', mediaType: 'audio/ogg', name: 'voice-12.ogg', size: 900, recording: { kind: 'voice', seconds: 42 }, fileId: 'v' }]);
    const audio = filesOf({ ...base, audio: { file_id: 'a', file_unique_id: 'ua', duration: 180, file_name: 'song.mp3', mime_type: 'audio/mpeg' } } as Message);
    expect(audio[0]!.recording).toEqual({ kind: 'audio', seconds: 180 });
    const note = filesOf({ ...base, video_note: { file_id: 'n', file_unique_id: 'un', duration: 9, length: 240 } } as Message);
    expect(note[0]).toMatchObject({ mediaType: 'video/mp4', recording: { kind: 'video note', seconds: 9 } });
    const video = filesOf({ ...base, video: { file_id: 'x', file_unique_id: 'ux', duration: 9, width: 1, height: 1 } } as Message);
    expect(video[0]!.recording).toBeUndefined();
  });

  it('Slack: a clip recorded in Slack is a voice note, an audio upload is audio, a PDF is neither', () => {
    const [clip, upload, pdf] = slackAttachments(
      [
        { id: 'F1', name: 'Audio Clip', mimetype: 'audio/webm', subtype: 'slack_audio', duration_ms: 4500, url_private_download: 'https://files.slack.com/1' },
        { id: 'F2', name: 'memo.m4a', mimetype: 'audio/mp4', url_private_download: 'https://files.slack.com/2' },
        { id: 'F3', name: 'a.pdf', mimetype: 'application/pdf', url_private_download: 'https://files.slack.com/3' },
      ],
      none,
    );
    expect(clip!.recording).toEqual({ kind: 'voice', seconds: 4.5 });
    expect(upload!.recording).toEqual({ kind: 'audio' });
    expect(pdf!.recording).toBeUndefined();
  });

  it('Discord: a voice message (waveform and length) is a voice note, an audio upload is audio, an image is neither', () => {
    const attachment = (fields: Partial<APIAttachment>): APIAttachment => ({ id: '1', filename: 'f', size: 10, url: 'https://cdn.discordapp.com/f', proxy_url: 'https://media.discordapp.net/f', ...fields });
    const [voice, upload, image] = discordAttachments(
      [
        attachment({ filename: 'voice-message.ogg', content_type: 'audio/ogg', duration_secs: 7.2, waveform: 'AAAA' }),
        attachment({ filename: 'talk.mp3', content_type: 'audio/mpeg' }),
        attachment({ filename: 'cat.png', content_type: 'image/png' }),
      ],
      none,
    );
    expect(voice!.recording).toEqual({ kind: 'voice', seconds: 7.2 });
    expect(upload!.recording).toEqual({ kind: 'audio' });
    expect(image!.recording).toBeUndefined();
  });
});
