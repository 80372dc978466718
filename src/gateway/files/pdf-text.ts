/**
 * The text of a PDF a person sent, page by page, through unpdf (PDF.js built for servers). Only
 * the bytes of the person's own upload are parsed, never a path. PDF.js runs here without its
 * eval-compiled fonts (a PDF is untrusted input) and quietly (its warnings are about the file,
 * not the gateway). Reading stops at a number of pages and of characters; what was left is named.
 */
import type { ReadText } from './document-text.ts';

/** Most pages of one PDF read: past that a document is a book, and the model is told the rest. */
export const maxPdfPages = 200;

/** The text items of a page, as PDF.js gives them (marked-content items carry no `str`). */
interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/**
 * Reads `bytes` as a PDF, at most `maxChars` characters and {@link maxPdfPages} pages; throws when
 * they are not a PDF PDF.js can open (damaged, or encrypted with a password), or with `signal`'s
 * reason once it is aborted (looked at between pages).
 */
export async function pdfText(bytes: Uint8Array, maxChars: number, signal?: AbortSignal): Promise<ReadText> {
  // Loaded with the first PDF: most gateways never see one.
  const { getDocumentProxy } = await import('unpdf');
  // A copy: PDF.js may take over (detach) the buffer it is given.
  const document = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0, useSystemFonts: false, disableFontFace: true });
  try {
    // Pages apart by a blank line; a page without text (a picture) adds nothing.
    let text = '';
    let read = 0;
    let cut = false;
    const last = Math.min(document.numPages, maxPdfPages);
    while (read < last && !cut) {
      if (signal) {
        // PDF.js's work is promise after promise: without a turn of the event loop between pages
        // the timer that aborts `signal` would not run until the whole read is over.
        await new Promise((resolve) => setTimeout(resolve, 0));
        signal.throwIfAborted();
      }
      const page = await document.getPage(++read);
      const content = await page.getTextContent();
      page.cleanup();
      const pageText = (content.items as TextItem[]).map((item) => (item.str ?? '') + (item.hasEOL ? '\n' : '')).join('').trim();
      if (pageText === '') continue;
      const joined = text === '' ? pageText : `${text}\n\n${pageText}`;
      cut = joined.length > maxChars;
      text = joined.slice(0, maxChars);
    }
    if (!cut && read === document.numPages) return { text };
    // Cut off within a page: that page's rest is unread too.
    const from = cut ? read : read + 1;
    return { text, unread: `from page ${from} on (of ${document.numPages})` };
  } finally {
    await document.destroy();
  }
}
