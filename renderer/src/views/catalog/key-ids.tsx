// The signing keys of a catalog source or plugin, shared by the Catalog view and its dialogs.
/** Key ids are 64 hex characters: the start is shown, the whole id is in the accessible text. */
export function KeyIds({ ids }: { ids: string[] }) {
  return (
    <ul className="catalog-keyids">
      {ids.map((k) => (
        <li key={k} title={k} className="mono selectable">
          {k}
        </li>
      ))}
    </ul>
  );
}
