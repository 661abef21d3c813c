// A WebAssembly plugin's imports next to the permissions its manifest grants: each host function
// the module asks for, the permission that links it, and a marker on every one that is not
// granted (such a module cannot be enabled; the problem list says the same in words).
import type { PluginDetailView } from '../../../../shared/contract.ts';
import { SafeText } from '../../components/safe-text.tsx';

const ABI: Record<string, string> = {
  extism: 'Extism ABI: each tool is an export, called with its JSON input.',
  wasi: 'WASI program (wasm32-wasip1): JSON on stdin, the result on stdout; only the granted folders are opened, no network.',
  'extism+wasi': 'Extism ABI with WASI beside it: its WASI output goes to the log; only the granted folders are opened, no network.',
  agentzero: "AgentZero plugin ABI v2 (its SDK's declare_tool!): the arguments as JSON text in, {output, error} out; az_log goes to the log; only the granted folders are opened, no network.",
};

const NEEDS: Record<string, string> = {
  core: 'always linked',
  log: 'permissions.log',
  hosts: 'permissions.hosts',
  read: 'permissions.read',
  write: 'permissions.write',
};

export function WasmImports({ detail }: { detail: PluginDetailView }) {
  const view = detail.wasmImports;
  if (!view) return null;
  const refused = view.imports.filter((i) => !i.granted).length;
  return (
    <section className="wasm-imports" data-testid="plugin-wasm-imports" aria-label="WebAssembly imports">
      <h3>
        WebAssembly imports{' '}
        {refused > 0 ? (
          <span className="badge badge-danger" data-testid="wasm-imports-mismatch">
            {refused} not granted
          </span>
        ) : null}
      </h3>
      {view.abi ? (
        <p className="muted" data-testid="wasm-abi" data-abi={view.abi}>
          {ABI[view.abi]}
        </p>
      ) : null}
      {view.error ? (
        <p className="inline-error" role="alert">
          <SafeText text={view.error} />
        </p>
      ) : view.imports.length === 0 ? (
        <p className="muted">The module imports nothing: it can only compute.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Import</th>
              <th scope="col">Needs</th>
              <th scope="col">Granted</th>
            </tr>
          </thead>
          <tbody>
            {view.imports.map((i, n) => (
              <tr key={n} data-granted={i.granted ? 'true' : 'false'} className={i.granted ? undefined : 'row-danger'}>
                <td className="mono selectable">
                  <SafeText text={`${i.module}.${i.name}`} />
                </td>
                <td>{i.grant ? NEEDS[i.grant] : 'not provided by Gatehouse'}</td>
                <td aria-label={i.granted ? 'granted' : 'not granted'}>{i.granted ? '✓' : '✗ not granted'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
