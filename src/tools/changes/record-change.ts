/** How the file tools report a change they made, without ever failing because of the report. */
import { errorMessage } from '../../core/errors.ts';
import type { ToolContext } from '../tool.ts';
import type { ChangeReport } from './file-change.ts';

/**
 * Records `change` through `context.changes`. Resolves to '' when recorded (or when nothing
 * records), else to a note for the tool's result: the file was changed, but `/undo` will not
 * know of it.
 */
export async function recordChange(context: Pick<ToolContext, 'changes'>, change: ChangeReport): Promise<string> {
  if (!context.changes) return '';
  try {
    await context.changes.record(change);
    return '';
  } catch (error) {
    return ` (not recorded for /undo: ${errorMessage(error)})`;
  }
}
