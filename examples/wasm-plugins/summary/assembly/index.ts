// summarize: reads a file the manifest grants (through Gatehouse's read_file host function) and
// returns its size, line and word counts and first line as JSON. Input: {"path": "..."}.
import { fromHost, input, read_file, setError, setOutput, toHost } from "./extism";

/** The string value of "path" in a flat JSON object (no escapes in the value). */
function pathOf(json: string): string | null {
  const key = json.indexOf('"path"');
  if (key < 0) return null;
  const colon = json.indexOf(":", key + 6);
  const open = json.indexOf('"', colon + 1);
  const close = json.indexOf('"', open + 1);
  if (colon < 0 || open < 0 || close < 0) return null;
  return json.substring(open + 1, close);
}

function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 34) out += '\\"';
    else if (c == 92) out += "\\\\";
    else if (c < 32) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += String.fromCharCode(c);
  }
  return out + '"';
}

export function summarize(): i32 {
  const path = pathOf(String.UTF8.decode(input().buffer));
  if (path === null) {
    setError('summarize needs {"path": "<a file under a granted folder>"}');
    return 1;
  }
  const block = read_file(toHost(Uint8Array.wrap(String.UTF8.encode(path!))));
  if (block == 0) {
    setError("Gatehouse did not let this plugin read " + path! + " (see the call's log and the audit log)");
    return 1;
  }
  const bytes = fromHost(block);
  let lines = 0;
  let words = 0;
  let inWord = false;
  let firstEnd = -1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b == 10) {
      lines++;
      if (firstEnd < 0) firstEnd = i;
    }
    const space = b == 32 || b == 9 || b == 10 || b == 13;
    if (!space && !inWord) words++;
    inWord = !space;
  }
  if (bytes.length > 0 && bytes[bytes.length - 1] != 10) lines++;
  const first = String.UTF8.decode(bytes.slice(0, firstEnd < 0 ? min(bytes.length, 200) : min(firstEnd, 200)).buffer);
  setOutput('{"path":' + quote(path!) + ',"bytes":' + bytes.length.toString() + ',"lines":' + lines.toString() + ',"words":' + words.toString() + ',"first_line":' + quote(first) + "}");
  return 0;
}
