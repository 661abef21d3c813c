// kind = "tool" (the default): one process per call, JSON on stdin and one JSON object on stdout
// (WraithRun's contract). Its tools are declared in the manifest, each running `command`.
import { toolSpec } from '../../manifest/tool-spec.js';
import type { PluginKindProvider } from '../provider.js';

export const toolKind: PluginKindProvider = {
  name: 'tool',
  info: { label: 'tool', callable: true, judgesCalls: false, longLived: false, noTools: 'no tools' },
  discover: { by: 'manifest' },
  toolNaming: 'single-by-plugin-name',
  confinedByManifest: true,
  manifest: {
    tools: (raw, command, args) =>
      raw.tools
        ? Object.entries(raw.tools).map(([name, t]) => toolSpec(name, t.description, t.parameters, t.command ?? command, [...(t.args ?? args)]))
        : [toolSpec(raw.name, raw.description, raw.parameters, command, [...args])],
  },
  run: (a, engines) => engines.oneShot(a),
};
