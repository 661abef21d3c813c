// The file on disk that a waiting Write, Edit or MultiEdit call would change, so the console can
// show the change as a diff. The console never names a path: it names a pending approval, and the
// host reads the one file that call's own arguments target (resolved against the call's cwd),
// bounded in size, and only while the item waits. So an operator token reaches no file an agent
// has not already asked to write, and nothing is read for a decided item.
import { open } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { ApprovalItem } from './types.js';
import { formatBytes } from '../../shared/format.js';

/** Larger files are not diffed: the pane says so and shows the new text alone. */
export const FILE_BEFORE_MAX_BYTES = 512 * 1024;

const EDIT_TOOLS = new Set(['Write', 'Edit', 'MultiEdit']);

export interface FileBefore {
  path: string;
  exists: boolean;
  size: number;
  /** The file's text, or null when it does not exist, is too large, is not a regular file or is binary. */
  content: string | null;
  /** Why content is null when the file exists. */
  note: string | null;
}

export class FileBeforeError extends Error {
  constructor(
    readonly reason: 'not_found' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

export async function readFileBefore(item: ApprovalItem | null, id: string, maxBytes = FILE_BEFORE_MAX_BYTES): Promise<FileBefore> {
  if (!item) throw new FileBeforeError('not_found', `There is no approval ${id}.`);
  if (item.state !== 'pending') throw new FileBeforeError('invalid', `Approval ${id} is ${item.state}: the file is read only while its call waits.`);
  const { tool, arguments: args, cwd } = item.call;
  if (!EDIT_TOOLS.has(tool)) throw new FileBeforeError('invalid', `Approval ${id} is a ${tool} call: only Write, Edit and MultiEdit calls have a file to compare with.`);
  const named = args?.['file_path'] ?? args?.['path'];
  if (typeof named !== 'string' || named.length === 0 || named.length > 4096) {
    throw new FileBeforeError('invalid', `Approval ${id} has no usable arguments.file_path (a path of 1 to 4096 characters).`);
  }
  const path = isAbsolute(named) ? named : resolve(cwd, named);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, exists: false, size: 0, content: null, note: null };
    return { path, exists: true, size: 0, content: null, note: `It cannot be read (${code ?? 'error'}).` };
  }
  try {
    // fstat on the handle we read: the checks and the read are about the same file.
    const st = await handle.stat();
    if (!st.isFile()) return { path, exists: true, size: st.size, content: null, note: 'It is not a regular file.' };
    if (st.size > maxBytes) return { path, exists: true, size: st.size, content: null, note: `It is larger than ${formatBytes(maxBytes)}; only the new text is shown.` };
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > maxBytes) return { path, exists: true, size: bytesRead, content: null, note: `It grew past ${formatBytes(maxBytes)} while being read.` };
    const bytes = buf.subarray(0, bytesRead);
    if (bytes.includes(0)) return { path, exists: true, size: bytesRead, content: null, note: 'It is binary.' };
    return { path, exists: true, size: bytesRead, content: bytes.toString('utf8'), note: null };
  } finally {
    await handle.close();
  }
}
