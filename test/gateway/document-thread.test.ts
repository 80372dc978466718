/**
 * Documents read in a thread of their own (the built `dist/` code, as the gateway runs it): the
 * text comes back as read in the process, a file that cannot be read says why, and a read not
 * done within its time is stopped and said so, the thread ended.
 */
import { describe, expect, it } from 'vitest';
import { documentReader, DocumentUnreadableError } from '../../src/gateway/files/document-text.ts';
import { readInThread } from '../../src/gateway/files/read-in-thread.ts';
import { docxDocument, pdfDocument } from '../helpers/document-bytes.ts';

describe('documents read in their own thread', () => {
  it("gives a PDF's and a Word document's text back", async () => {
    expect(await readInThread(pdfDocument([['Read in a thread'], ['page two']]), 'application/pdf', 'a.pdf', 1_000)).toEqual({ text: 'Read in a thread\n\npage two' });
    expect(await readInThread(docxDocument(['one', 'two']), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'b.docx', 1_000)).toEqual({ text: 'one\n\ntwo' });
  });

  it('says why a damaged file could not be read', async () => {
    await expect(readInThread(Buffer.from('%PDF-1.4\nbroken'), 'application/pdf', 'c.pdf', 1_000)).rejects.toThrow(new DocumentUnreadableError('it is not a PDF that can be read (damaged, or another kind of file)'));
  });

  it('reads more documents than it runs threads at once, each to its own end, a failure among them', async () => {
    const reads = [1, 2, 3, 4, 5].map((n) => readInThread(pdfDocument([[`document ${n}`]]), 'application/pdf', `${n}.pdf`, 1_000));
    const broken = readInThread(Buffer.from('%PDF-1.4\nbroken'), 'application/pdf', 'broken.pdf', 1_000);
    await expect(broken).rejects.toThrow(DocumentUnreadableError);
    expect(await Promise.all(reads)).toEqual([1, 2, 3, 4, 5].map((n) => ({ text: `document ${n}` })));
    // Every place was handed back: one more read still runs.
    expect(await readInThread(pdfDocument([['after']]), 'application/pdf', 'after.pdf', 1_000)).toEqual({ text: 'after' });
  });

  it('stops a read that is not done in its time, and the reader names it', async () => {
    const pdf = pdfDocument([['never read']]);
    await expect(readInThread(pdf, 'application/pdf', 'slow.pdf', 1_000, 0)).rejects.toThrow('reading it took more than 0 ms and was stopped');
    const read = documentReader(1_000, (bytes, mediaType, name, maxChars) => readInThread(bytes, mediaType, name, maxChars, 0));
    expect(await read(pdf, 'application/pdf', 'slow.pdf')).toBe('[slow.pdf could not be read as text: reading it took more than 0 ms and was stopped; the file is saved]');
  });
});
