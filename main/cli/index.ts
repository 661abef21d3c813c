// `gatehouse`: the command line. The commands are in program.ts; this runs them and turns what
// went wrong into an exit code: 0 done (help and version too), 1 failed, 2 a usage mistake,
// 130 cancelled with Ctrl-C.
import { type Command, CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { usageLine } from './gatehouse-command.js';
import { UsageError } from '../core/usage-error.js';
import { JobCancelled } from '../host/jobs.js';
import { CANCELLED_EXIT } from './progress.js';
import { displayText } from '../../shared/display-text.js';

// Errors can quote what a host or a file said (names, reasons, paths): escaped, keeping line breaks.
const shown = (err: unknown) => displayText((err as Error).message, { multiline: true });

export async function main(argv: string[]): Promise<void> {
  const cli = buildProgram();
  // The command whose action runs, for the usage line after a UsageError it throws.
  let running: Command = cli;
  cli.hook('preAction', (_cli, action) => {
    running = action;
  });
  try {
    await cli.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has printed the error and usage line (GatehouseCommand.error), or the help.
      // Help and version exit 0; everything else commander rejects is a usage mistake, and so is
      // a group command run without its subcommand (its help goes to stderr).
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    if (err instanceof JobCancelled) {
      // The operator stopped it (Ctrl-C): how far it got, and the shell's code for an interrupt.
      console.error(`gatehouse: ${shown(err)}`);
      process.exit(CANCELLED_EXIT);
    }
    if (err instanceof UsageError) {
      // The same shape as commander's own errors: one line, then the usage line.
      console.error(`gatehouse: ${shown(err)}`);
      console.error(usageLine(running));
      process.exit(2);
    }
    console.error(`gatehouse: ${shown(err)}`);
    process.exit(1);
  }
}

await main(process.argv);
