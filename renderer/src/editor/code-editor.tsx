// One Monaco editor for a plugin's files. Monaco itself is loaded on first use (a dynamic
// import of monaco-setup.ts): the console starts without it.
import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { errorMessage } from '../lib/error-message.ts';
import { markerMessage, markerSeverity, type Diagnostic } from './diagnostics.ts';
import { languageOf } from './language-of.ts';
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
/** Loads Monaco once; later editors reuse it. */
export function loadMonaco(): Promise<Monaco> {
  loading ??= import('./monaco-setup.ts').then((m) => m.monaco);
  // A failed load (network hiccup in the serve shell) may be retried by the next editor.
  loading.catch(() => (loading = null));
  return loading;
}

const MARKER_OWNER = 'gatehouse';

export function CodeEditor({ doc, diagnostics, label, onChange, onSave, reveal, ref }: CodeEditorProps) {
  const container = useRef<HTMLDivElement>(null);
  const [monaco, setMonaco] = useState<Monaco | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editor, setEditor] = useState<MonacoEditor.IStandaloneCodeEditor | null>(null);
  const [model, setModel] = useState<MonacoEditor.ITextModel | null>(null);
  const lastEmitted = useRef<string | null>(null);
  const callbacks = useRef({ onChange, onSave });
  callbacks.current = { onChange, onSave };

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

  // The editor widget, created once Monaco is there.
  useEffect(() => {
    if (!monaco || !container.current) return;
    const ed = monaco.editor.create(container.current, {
      model: null,
      theme: 'gatehouse-dark',
      ariaLabel: label,
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
    });
    ed.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => callbacks.current.onSave());
    const sub = ed.onDidChangeModelContent(() => {
      const m = ed.getModel();
      if (!m) return;
      const text = m.getValue();
      lastEmitted.current = text;
      callbacks.current.onChange(text);
    });
    setEditor(ed);
    return () => {
      sub.dispose();
      // Detach (not dispose) the model first: the model effect owns it and disposes it.
      ed.setModel(null);
      ed.dispose();
      setEditor(null);
    };
    // The label only changes with the file; updateOptions below keeps it current.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [monaco]);

  useEffect(() => {
    editor?.updateOptions({ ariaLabel: label });
  }, [editor, label]);

  // One model per opened file. Text edits from outside (a reload from disk) keep undo history.
  const docKey = doc.key;
  useEffect(() => {
    if (!monaco || !editor) return;
    const firstLine = doc.text.slice(0, 200).split('\n', 1)[0] ?? '';
    const m = monaco.editor.createModel(doc.text, languageOf(doc.path, firstLine));
    lastEmitted.current = doc.text;
    editor.setModel(m);
    setModel(m);
    return () => {
      if (editor.getModel() === m) editor.setModel(null);
      m.dispose();
      setModel(null);
    };
    // Only a new file means a new model; doc.text changes are applied by the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [monaco, editor, docKey]);

  const docText = doc.text;
  const docRev = doc.rev;
  useEffect(() => {
    // The echo of the editor's own edits is skipped: by now the author may have typed more.
    if (!model || docText === lastEmitted.current || model.getValue() === docText) return;
    model.pushEditOperations([], [{ range: model.getFullModelRange(), text: docText }], () => null);
  }, [model, docText, docRev]);

  useEffect(() => {
    if (!monaco || !model) return;
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
    // Only a new request (seq) or a newly opened model shows the place again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
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

  return (
    <div className="code-editor" data-testid="editor" data-path={doc.path} data-ready={editor ? 'true' : 'false'} data-markers={diagnostics.length}>
      <div ref={container} className="code-editor-surface" />
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
