// The folder a call that names none is judged and run in (gateway-services.ts): a host started in
// Gatehouse's own installation (`npm start` in a checkout) does not judge agents' calls as if they
// worked on Gatehouse itself.
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installRoot } from '../../../main/core/install-files.js';
import { createHost } from '../../../main/host/create-host.js';
import { defaultWorkingFolder } from '../../../main/host/gateway-services.js';
import { tempDir } from '../../support/temp.js';

describe('the working folder of a call that names none', () => {
  it('is the project the host was started for, else the folder it was started in, but never Gatehouse\'s installation', () => {
    expect(defaultWorkingFolder('/work/proj', '/opt/gatehouse', '/opt/gatehouse', '/home/u')).toBe('/work/proj');
    expect(defaultWorkingFolder(undefined, '/work/proj', '/opt/gatehouse', '/home/u')).toBe('/work/proj');
    expect(defaultWorkingFolder(undefined, '/opt/gatehouse', '/opt/gatehouse', '/home/u')).toBe('/home/u');
    expect(defaultWorkingFolder(undefined, '/opt/gatehouse/examples', '/opt/gatehouse', '/home/u')).toBe('/home/u');
    // A sibling whose name starts the same is not inside it.
    expect(defaultWorkingFolder(undefined, '/opt/gatehouse-work', '/opt/gatehouse', '/home/u')).toBe('/opt/gatehouse-work');
    expect(defaultWorkingFolder(undefined, '/work/proj', null, '/home/u')).toBe('/work/proj');
  });

  it('a host started in its checkout judges an MCP call with no folder in the user\'s home, not in Gatehouse', async () => {
    // These tests run in the checkout, which is the installation the code is loaded from.
    expect(process.cwd()).toBe(installRoot());
    const home = join(tempDir('gatehouse-default-cwd-'), 'home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    const host = createHost({ home, shell: 'serve', log: () => {}, watch: false });
    try {
      await host.ready;
      const r = await host.gateway.call({ agent: 'mcp-agent', session: 's', tool: 'shell', arguments: { command: 'npm run build' }, source: 'mcp' }, { execute: false });
      expect(r.call.cwd).toBe(homedir());
      expect(JSON.stringify(r)).not.toMatch(/installation/i);
    } finally {
      await host.close('test done');
    }
  });
});
