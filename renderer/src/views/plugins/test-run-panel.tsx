// Runs the plugin's tool once through the host's real runner and sandbox (not exposed to
// agents) and shows what it printed.
import { useEffect, useId, useMemo, useState } from 'react';
import type { PluginDetailView, ResponseOf } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { testRunPlugin } from '../../sync/plugins-actions.ts';
import { errorMessage } from '../../lib/error-message.ts';

interface ToolInfo {
  name: string;
  description: string;
  parameters: Record<string, { type: string; required: boolean }>;
}

/** The tools of a `tool` plugin, read defensively from the manifest the host sent. */
export function toolsOf(detail: PluginDetailView): ToolInfo[] {
  const m = detail.manifest as { tools?: unknown } | null;
  if (!m || !Array.isArray(m.tools)) return [];
  return m.tools.flatMap((t: unknown) => {
    if (!t || typeof t !== 'object') return [];
    const { name, description, parameters } = t as { name?: unknown; description?: unknown; parameters?: unknown };
    if (typeof name !== 'string') return [];
    const params: ToolInfo['parameters'] = {};
    if (parameters && typeof parameters === 'object') {
      for (const [k, v] of Object.entries(parameters as Record<string, unknown>)) {
        const spec = (v ?? {}) as { type?: unknown; required?: unknown };
        params[k] = { type: typeof spec.type === 'string' ? spec.type : 'string', required: spec.required === true };
      }
    }
    return [{ name, description: typeof description === 'string' ? description : '', parameters: params }];
  });
}

const placeholder: Record<string, unknown> = { string: '', number: 0, integer: 0, boolean: false, array: [], object: {} };

/** `{"message": ""}` for a tool with one string parameter: every parameter with a value of its type. */
export function sampleInput(tool: ToolInfo | undefined): string {
  const obj: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(tool?.parameters ?? {})) obj[k] = placeholder[p.type] ?? null;
  return JSON.stringify(obj, null, 2);
}

type Outcome = { kind: 'result'; result: ResponseOf<'plugins.testRun'> } | { kind: 'error'; message: string } | null;

export function TestRunPanel({ detail }: { detail: PluginDetailView }) {
  const client = useClient();
  const tools = useMemo(() => toolsOf(detail), [detail]);
  const [toolName, setToolName] = useState<string>(tools[0]?.name ?? '');
  const tool = tools.find((t) => t.name === toolName) ?? tools[0];
  const [input, setInput] = useState(() => sampleInput(tool));
  const [inputError, setInputError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const ids = useId();

  // Another plugin, or another tool: start from that tool's parameters.
  const toolKey = `${detail.name}\u0000${tool?.name ?? ''}\u0000${Object.keys(tool?.parameters ?? {}).join(',')}`;
  useEffect(() => {
    setInput(sampleInput(tool));
    setInputError(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `toolKey` stands for `tool`, found anew on every render
  }, [toolKey]);
  useEffect(() => {
    setOutcome(null);
    setToolName(tools[0]?.name ?? '');
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only another plugin resets the panel, not a new list of the same plugin's tools
  }, [detail.name]);

  const run = async () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch (err) {
      setInputError(`The input is not valid JSON: ${errorMessage(err)}`);
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setInputError('The input must be one JSON object, e.g. {"message": "hi"}: a tool receives its arguments as an object.');
      return;
    }
    setInputError(null);
    setRunning(true);
    try {
      const result = await testRunPlugin(client, {
        name: detail.name,
        ...(tools.length > 1 && tool ? { tool: tool.name } : {}),
        input: parsed as Record<string, unknown>,
      });
      setOutcome({ kind: 'result', result });
    } catch (err) {
      setOutcome({ kind: 'error', message: errorMessage(err) });
    } finally {
      setRunning(false);
    }
  };

  // Every kind whose tools agents call is test-run the same way (a wasm plugin's exports, metered).
  const hasTools = detail.kindInfo?.callable === true;
  const runnable = detail.status !== 'invalid' && hasTools;
  return (
    <section className="panel test-run" aria-labelledby={`${ids}-h`}>
      <h3 id={`${ids}-h`} className="panel-title">
        Test run <span className="panel-note">through the real runner and sandbox; agents do not see it</span>
      </h3>
      <div className="test-run-form">
        {tools.length > 1 ? (
          <label className="field field-inline">
            <span className="field-label">Tool</span>
            <select className="input" value={tool?.name ?? ''} onChange={(e) => setToolName(e.target.value)} data-testid="test-run-tool">
              {tools.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label className="field">
          <span className="field-label">Input (JSON object on the tool's stdin)</span>
          <textarea
            className="input textarea mono"
            rows={Math.min(10, Math.max(3, input.split('\n').length))}
            spellCheck={false}
            value={input}
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={(e) => {
              if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
                e.preventDefault();
                void run();
              }
            }}
            data-testid="test-run-input"
            aria-invalid={inputError ? true : undefined}
            aria-describedby={inputError ? `${ids}-err` : undefined}
          />
        </label>
        {inputError ? (
          <p id={`${ids}-err`} className="inline-error" role="alert">
            {inputError}
          </p>
        ) : null}
        <div className="test-run-actions">
          <button
            type="button"
            className="button button-primary button-small"
            onClick={() => void run()}
            disabled={running || !runnable}
            aria-busy={running}
            aria-keyshortcuts="Control+Enter"
            data-testid="test-run-go"
            title={runnable ? 'Run the tool once with this input (Ctrl+Enter)' : !hasTools ? 'Test runs are for tool plugins' : 'Fix the plugin’s problems first'}
          >
            {running ? 'Running…' : 'Run'}
          </button>
          {!runnable ? <span className="muted">{!hasTools ? `A ${detail.kind ?? 'broken'} plugin has no tool to run.` : 'An invalid plugin cannot run; fix its problems first.'}</span> : null}
        </div>
      </div>
      {outcome?.kind === 'error' ? (
        <p className="inline-error" role="alert">
          The test run could not start: {outcome.message}
        </p>
      ) : null}
      {outcome?.kind === 'result' ? <TestRunOutput result={outcome.result} /> : null}
    </section>
  );
}

function TestRunOutput({ result }: { result: ResponseOf<'plugins.testRun'> }) {
  return (
    <div className="test-run-output" data-testid="test-run-output" data-exit-code={result.exitCode ?? ''} data-ok={result.ok} role="status">
      <div className="test-run-summary">
        <span className={`badge ${result.ok ? 'badge-verified' : 'badge-broken'}`}>{result.ok ? 'OK' : 'Failed'}</span>
        <span>
          exit code <span className="mono">{result.exitCode ?? '—'}</span>
        </span>
        <span>
          <span className="mono">{result.durationMs.toFixed(0)}</span> ms
        </span>
        {result.failure ? <span className="mono test-run-failure">{result.failure}</span> : null}
        {result.fuelUsed !== undefined ? (
          <span data-testid="test-run-fuel">
            fuel <span className="mono">{result.fuelUsed}</span> of {result.fuelLimit}
          </span>
        ) : null}
      </div>
      {result.error ? <p className="inline-error">{result.error}</p> : null}
      <div className="test-run-streams">
        <div>
          <div className="stream-label">stdout</div>
          <pre className="stream selectable" data-stream="stdout">
            {result.stdout || <span className="muted">(empty)</span>}
          </pre>
        </div>
        <div>
          <div className="stream-label">stderr</div>
          <pre className="stream selectable" data-stream="stderr">
            {result.stderr || <span className="muted">(empty)</span>}
          </pre>
        </div>
      </div>
    </div>
  );
}
