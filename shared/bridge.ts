// The object the Electron preload puts on `window.gatehouse`: the renderer codes against this
// type, the preload implements it. It lives in shared/ so neither imports the other.
export interface GatehouseBridge {
  readonly methods: readonly string[];
  invoke(method: string, params?: unknown): Promise<unknown>;
  onEvent(listener: (name: string, payload: unknown) => void): () => void;
}
