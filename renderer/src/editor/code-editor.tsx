// One Monaco editor for a plugin's files and the policy, through @monaco-editor/react. Monaco
// itself is loaded on first use (a dynamic import of monaco-setup.ts): the console starts without
// it. The loader is handed that bundled copy (`loader.config({ monaco })`) before any <Editor>
// mounts, so it never injects its default CDN script, which the CSP (shared/csp.ts) forbids and
// an offline machine could not fetch anyway.
import { Editor, loader, type OnMount } from '@monaco-editor/react';
import { useCallback, useEffect, useImperativeHandle, useMemo, useRef, useState, type Ref } from 'react';
import { errorMessage } from '../lib/error-message.ts';
import { markerMessage, markerSeverity, type Diagnostic } from './diagnostics.ts';
import { languageOf } from './language-of.ts';
import { useThemeStore } from '../stores/theme-store.ts';
import type { Monaco } from './monaco-setup.ts';
import type { editor as MonacoEditor } from 'monaco-editor/editor/editor.api';

/**
 * The text the editor should hold (controlled). A new `key` opens a new model; a `text` that is
 * not what the editor itself last reported (a reload from disk, a discard) replaces the content.
 */
export interface EditorDoc {
  key: string;
  path: string;
  text: string;
  rev: number;
}

export interface CodeEditorHandle {
  /** Puts the cursor at a 1-based position, scrolls it into view and focuses the editor. */
  reveal(line: number, column: number): void;
  focus(): void;
}

export interface CodeEditorProps {
  doc: EditorDoc;
  /** Problems and findings of this file, shown as markers. */
  diagnostics: readonly Diagnostic[];
  label: string;
  onChange(text: string): void;
  onSave(): void;
  /** A place to show once the file is open (a new `seq` shows it again). */
  reveal?: { line: number; column: number; seq: number } | null;
  ref?: Ref<CodeEditorHandle>;
}

let loading: Promise<Monaco> | null = null;
/** Loads Monaco once and gives it to @monaco-editor/react's loader; later editors reuse it. */
export function loadMonaco(): Promise<Monaco> {
  loading ??= import('./monaco-setup.ts').then((m) => {
    loader.config({ monaco: m.monaco });
    return m.monaco;
  });
  // A failed load (network hiccup in the serve shell) may be retried by the next editor.
  loading.catch(() => (loading = null));
  return loading;
}

const MARKER_OWNER = 'gatehouse';

const baseOptions: MonacoEditor.IStandaloneEditorConstructionOptions = {
  automaticLayout: true,
  minimap: { enabled: false },
  fontFamily: "ui-monospace, 'SF Mono', SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace",
  fontSize: 12.5,
  lineHeight: 19,
  scrollBeyondLastLine: false,
  renderWhitespace: 'selection',
  // Invisible and bidirectional characters (Trojan Source) must be visible to a reviewer.
  renderControlCharacters: true,
  unicodeHighlight: { invisibleCharacters: true, ambiguousCharacters: true, nonBasicASCII: false },
  // Hovers escape the panel's overflow instead of being clipped by it.
  fixedOverflowWidgets: true,
  padding: { top: 6, bottom: 6 },
  tabSize: 2,
  contextmenu: true,
};

export function CodeEditor({ doc, diagnostics, label, onChange, onSave, reveal, ref }: CodeEditorProps) {
  const [monaco, setMonaco] = useState<Monaco | null>(null);
  const theme = useThemeStore((s) => s.theme);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editor, setEditor] = useState<MonacoEditor.IStandaloneCodeEditor | null>(null);
  const [model, setModel] = useState<MonacoEditor.ITextModel | null>(null);
  // What the editor itself last reported (or was opened with): its echo in `doc.text` is not an outside change.
  const lastEmitted = useRef<string | null>(null);
  const callbacks = useRef({ onChange, onSave });
  useEffect(() => {
    callbacks.current = { onChange, onSave };
  });

  useEffect(() => {
    let live = true;
    loadMonaco().then(
      (m) => live && setMonaco(() => m),
      (err: unknown) => live && setLoadError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, []);

  // The label is the only option that changes; a stable object keeps the wrapper from re-applying the rest.
  const options = useMemo(() => ({ ...baseOptions, ariaLabel: label }), [label]);

  const onMount = useCallback<OnMount>((ed, m) => {
    ed.addCommand(m.KeyMod.CtrlCmd | m.KeyCode.KeyS, () => callbacks.current.onSave());
    lastEmitted.current = ed.getValue();
    setEditor(ed);
    setModel(ed.getModel());
    // The wrapper disposes the editor and its model when this document's <Editor> unmounts.
    ed.onDidDispose(() => {
      setEditor((cur) => (cur === ed ? null : cur));
      // The wrapper disposes the model just before the editor.
      setModel((cur) => (cur === null || cur.isDisposed() ? null : cur));
    });
  }, []);

  const handleChange = useCallback((text: string | undefined) => {
    if (text === undefined) return;
    lastEmitted.current = text;
    callbacks.current.onChange(text);
  }, []);

  const docText = doc.text;
  const docRev = doc.rev;
  useEffect(() => {
    // The echo of the editor's own edits is skipped: by now the author may have typed more.
    // Outside edits (a reload from disk) keep undo history.
    if (!model || model.isDisposed() || docText === lastEmitted.current || model.getValue() === docText) return;
    lastEmitted.current = docText;
    model.pushEditOperations([], [{ range: model.getFullModelRange(), text: docText }], () => null);
  }, [model, docText, docRev]);

  useEffect(() => {
    if (!monaco || !model || model.isDisposed()) return;
    monaco.editor.setModelMarkers(
      model,
      MARKER_OWNER,
      diagnostics.map((d) => {
        const range = markerRange(model, d);
        return {
          severity: markerSeverity[d.severity],
          message: markerMessage(d),
          source: d.source === 'scan' ? 'security scan' : 'validation',
          ...range,
        };
      }),
    );
  }, [monaco, model, diagnostics]);

  const revealSeq = reveal?.seq;
  useEffect(() => {
    if (!editor || !model || !reveal) return;
    showPosition(editor, reveal.line, reveal.column);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new request (seq) or a newly opened model shows the place again
  }, [editor, model, revealSeq]);

  useImperativeHandle(
    ref,
    () => ({
      reveal(line, column) {
        if (editor) showPosition(editor, line, column);
      },
      focus() {
        editor?.focus();
      },
    }),
    [editor],
  );

  const firstLine = doc.text.slice(0, 200).split('\n', 1)[0] ?? '';
  return (
    <div className="code-editor" data-testid="editor" data-path={doc.path} data-ready={editor ? 'true' : 'false'} data-markers={diagnostics.length}>
      {monaco ? (
        // One <Editor> (and so one model) per opened file: a new key mounts a fresh one and the
        // old one is disposed with its model. The text is uncontrolled here; outside changes go
        // through the effect above so the author's latest keystrokes are never overwritten.
        <Editor
          key={doc.key}
          defaultValue={doc.text}
          language={languageOf(doc.path, firstLine)}
          theme={theme === 'light' ? 'gatehouse-light' : 'gatehouse-dark'}
          options={options}
          loading={null}
          onMount={onMount}
          onChange={handleChange}
        />
      ) : null}
      {!editor ? (
        <div className="code-editor-overlay" role="status">
          {loadError ? <span className="inline-error">The editor could not be loaded: {loadError}</span> : <span className="muted">Loading editor…</span>}
        </div>
      ) : null}
    </div>
  );
}

function showPosition(editor: MonacoEditor.IStandaloneCodeEditor, line: number, column: number): void {
  const pos = { lineNumber: line, column };
  editor.setPosition(pos);
  editor.revealPositionInCenterIfOutsideViewport(pos);
  editor.focus();
}

/** The span to underline: the word at the position, or one character, or the first line for a problem with no place. */
function markerRange(model: MonacoEditor.ITextModel, d: Diagnostic) {
  const lineNumber = Math.min(Math.max(1, d.line), model.getLineCount());
  const maxColumn = model.getLineMaxColumn(lineNumber);
  if (!d.placed) return { startLineNumber: lineNumber, startColumn: 1, endLineNumber: lineNumber, endColumn: maxColumn };
  const startColumn = Math.min(Math.max(1, d.column), maxColumn);
  const word = model.getWordAtPosition({ lineNumber, column: startColumn });
  let endColumn = word && word.endColumn > startColumn ? word.endColumn : Math.min(startColumn + 1, maxColumn);
  // At the very end of a line there is no character to underline: take the line.
  const start = endColumn > startColumn ? startColumn : 1;
  if (endColumn <= start) endColumn = maxColumn;
  return { startLineNumber: lineNumber, startColumn: start, endLineNumber: lineNumber, endColumn };
}
