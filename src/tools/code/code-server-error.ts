/** The failures of the language server the `code` tool shows the model as they are. */
import { ToolError } from '../../core/errors.ts';

/**
 * The language server could not start, stopped while answering, did not answer in time or
 * refused a request. Its message is meant for the model; the next call starts a new server
 * where this one stopped.
 */
export class CodeServerError extends ToolError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, 'code', details);
  }
}
