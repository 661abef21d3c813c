// One host per GATEHOUSE_HOME. Two hosts appending to one audit log would fork its hash chain,
// so a second one refuses to start and says which process holds the folder.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../core/proc-scan.js';

export interface HostLock {
  release(): void;
}

export class HomeInUseError extends Error {
  constructor(
    readonly pid: number,
    home: string,
  ) {
    super(`Another Gatehouse host (pid ${pid}) is using ${home}. Use that console, stop it, or pick another folder with --home.`);
  }
}

export function acquireHostLock(home: string): HostLock {
  const path = join(home, 'host.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return {
        release() {
          try {
            if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
          } catch {
            // Already gone.
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw new HomeInUseError(pid, home);
      // A lock left by a host that died (SIGKILL, power loss): take it over.
      rmSync(path, { force: true });
    }
  }
  throw new Error(`Could not lock ${home}; remove ${path} if no Gatehouse is running.`);
}
