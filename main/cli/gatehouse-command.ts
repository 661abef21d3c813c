// The one Command class every `gatehouse` command is made of, so that a usage mistake reads the
// same on every command however deep: one error line, then that command's usage line, exit 2
// (main() maps the exit code). Commander copies only some settings to subcommands, and only when
// they are created; a subclass reaches every command because `.command()` builds children with
// `createCommand`, whichever file adds them.
import { Command, type ErrorOptions } from 'commander';

/** `Usage: gatehouse approvals deny [options] <id>`: the first line of that command's help. */
export function usageLine(cmd: Command): string {
  return `Usage: ${cmd.createHelp().commandUsage(cmd)}`;
}

export class GatehouseCommand extends Command {
  override createCommand(name?: string): GatehouseCommand {
    return new GatehouseCommand(name);
  }

  // Every error commander reports (unknown option or command, missing argument or option value,
  // invalid value, too many arguments) comes through here.
  override error(message: string, errorOptions?: ErrorOptions): never {
    // Commander puts its "(Did you mean …?)" suggestion on a line of its own; the operator gets
    // one line, which a script can also take as the whole message.
    let line = message.replace(/\s*\n\s*/g, ' ');
    if (errorOptions?.code === 'commander.unknownCommand' && !message.includes('\n')) {
      // Nothing close enough to suggest: name what there is instead.
      const names = this.createHelp().visibleCommands(this).map((c) => c.name()).filter((n) => n !== 'help');
      line += ` (commands: ${names.join(', ')})`;
    }
    // Just the usage line, not the whole help: the error stays visible in a terminal.
    this.showHelpAfterError(usageLine(this));
    return super.error(line, errorOptions);
  }
}

/** The unknown-subcommand error for a command that has its own action (commander only raises it for pure groups). */
export function unknownCommand(cmd: Command): never {
  // Commander's own method adds its "Did you mean …?" suggestion; it is not in the typings, so
  // fall back to the public error() (which then names the commands) should it ever go away.
  const own = (cmd as unknown as { unknownCommand?: () => never }).unknownCommand;
  if (typeof own === 'function') own.call(cmd);
  return cmd.error(`error: unknown command '${cmd.args[0] ?? ''}'`, { code: 'commander.unknownCommand' });
}

/** An example: the command line alone, or a comment saying what it does and the command line. */
export type Example = string | readonly [says: string, run: string];

/**
 * The Example(s) section that ends a command's --help, for `.addHelpText('after', …)` — every
 * command has one (test/cli-help checks). `note` goes before it, for what the options alone do
 * not tell.
 */
export function examplesHelp(examples: readonly Example[], note?: string): string {
  if (examples.length === 0) throw new Error('examplesHelp: give at least one example.');
  const commented = examples.some((e) => typeof e !== 'string');
  const lines = examples.map((e) => (typeof e === 'string' ? `  ${e}` : `  # ${e[0]}\n  ${e[1]}`));
  return `${note ? `\n${note}\n` : ''}\n${examples.length === 1 ? 'Example' : 'Examples'}:\n${lines.join(commented ? '\n\n' : '\n')}`;
}
