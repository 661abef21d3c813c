// Agent-supplied text on screen, shown as it is (see shared/display-text.ts): every control, bidi,
// invisible or look-alike space character is drawn as a distinct token (⟨U+202E⟩) instead of being
// obeyed or hidden, so a command reads in the order it runs and two different names never look the
// same. Only the display changes; copying the text, the data and what is decided are untouched.
import { Fragment } from 'react';
import { deceptiveKinds, displaySegments, displayText, type DisplaySegment } from '../../../shared/display-text.ts';

const KIND_LABEL: Record<Exclude<DisplaySegment['kind'], 'text'>, string> = {
  control: 'control character',
  bidi: 'bidirectional control: reorders how the text is drawn',
  invisible: 'invisible character',
  space: 'a space that is not U+0020',
  'line-break': 'line or paragraph separator',
};

/** Names for the common ones, in the token's tooltip. */
const NAMES: Record<string, string> = {
  'U+000A': 'line feed',
  'U+000D': 'carriage return',
  'U+0009': 'tab',
  'U+001B': 'escape',
  'U+202A': 'left-to-right embedding',
  'U+202B': 'right-to-left embedding',
  'U+202C': 'pop directional formatting',
  'U+202D': 'left-to-right override',
  'U+202E': 'right-to-left override',
  'U+2066': 'left-to-right isolate',
  'U+2067': 'right-to-left isolate',
  'U+2068': 'first strong isolate',
  'U+2069': 'pop directional isolate',
  'U+200E': 'left-to-right mark',
  'U+200F': 'right-to-left mark',
  'U+061C': 'Arabic letter mark',
  'U+200B': 'zero-width space',
  'U+200C': 'zero-width non-joiner',
  'U+200D': 'zero-width joiner',
  'U+2060': 'word joiner',
  'U+FEFF': 'byte-order mark',
  'U+00A0': 'no-break space',
};

/**
 * `text` with its hidden characters as visible tokens. `multiline` keeps line feeds as line breaks
 * (a command or output in a block); elsewhere they are tokens too, so one line stays one line.
 */
export function SafeText({ text, multiline = false }: { text: string; multiline?: boolean }) {
  const segments = displaySegments(text, { multiline });
  if (segments.length === 1 && segments[0]!.kind === 'text') return <>{text}</>;
  return (
    <>
      {segments.map((s, i) =>
        s.kind === 'text' ? (
          <Fragment key={i}>{s.text}</Fragment>
        ) : (
          <span key={i} className={`hidden-char hidden-char-${s.kind}`} data-testid="hidden-char" data-kind={s.kind} data-code-point={s.codePoint} title={`${s.codePoint}${NAMES[s.codePoint] ? ` ${NAMES[s.codePoint]}` : ''}: ${KIND_LABEL[s.kind]}`}>
            {`⟨${s.codePoint}⟩`}
          </span>
        ),
      )}
    </>
  );
}

/** For attributes (title, aria-label), which cannot hold markup: the same characters as `\u202e` escapes. */
export function safeTitle(text: string): string {
  return displayText(text);
}

/**
 * A warning beside a command that holds bidi controls or invisible characters: what is drawn is
 * not the order or the characters that run.
 */
export function HiddenTextBadge({ text, testId = 'hidden-text-badge' }: { text: string; testId?: string }) {
  const kinds = deceptiveKinds(text);
  if (kinds.length === 0) return null;
  const what = kinds.map((k) => (k === 'bidi' ? 'bidirectional controls' : 'invisible characters')).join(' and ');
  return (
    <span className="badge badge-hidden-text" data-testid={testId} data-kinds={kinds.join(' ')} title={`This text holds ${what}: it would display differently from what runs. They are shown as ⟨U+…⟩ tokens.`}>
      HIDDEN CHARACTERS
    </span>
  );
}
