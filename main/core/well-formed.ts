// Text that leaves JavaScript as UTF-8 (SQLite TEXT, a file, a socket) holds only well-formed
// UTF-16: a lone surrogate cannot be encoded, and comes back as something else (U+FFFD). Where a
// string is hashed or compared before it is stored, it must be made well formed first, or what
// was hashed is not what is read back. Node 20 has String#toWellFormed (ES2024); the ES2023 library this
// builds with does not declare it.
type WellFormedString = string & { toWellFormed(): string };

/** The string with each lone surrogate replaced by U+FFFD (the same string when there is none). */
export function toWellFormed(s: string): string {
  return (s as WellFormedString).toWellFormed();
}
