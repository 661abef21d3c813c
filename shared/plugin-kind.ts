// What a plugin kind looks like to a console, the CLI or the catalog: data its provider
// (main/registry/kinds/) states once, sent with every plugin so that no view names a kind to
// decide what to show. A new kind brings its own values; the views need no change.
import { z } from 'zod';

export const kindInfoSchema = z.object({
  /** Words for the kind in lists and headings, e.g. "WebAssembly tool". */
  label: z.string(),
  /** Agents call its tools through the tool runner, so an operator can test-run them. */
  callable: z.boolean(),
  /** It judges agents' calls (a checker): while it is enabled but quarantined, every call is blocked (fail closed). */
  judgesCalls: z.boolean(),
  /** It keeps processes running between calls, which an operator can restart. */
  longLived: z.boolean(),
  /** What the console says where the plugin lists no tools. */
  noTools: z.string(),
});

export type KindInfo = z.infer<typeof kindInfoSchema>;
