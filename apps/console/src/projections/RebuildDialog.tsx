import { useEffect, useRef } from 'preact/hooks';

/**
 * Asks before rebuilding `projection` (null: closed). Modal, and Cancel has the focus: a rebuild
 * replays the whole deployment's event log.
 */
export function RebuildDialog({
  projection,
  onCancel,
  onConfirm,
}: {
  projection: string | null;
  onCancel(): void;
  onConfirm(projection: string): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (projection && !d.open) {
      d.showModal();
      d.querySelector<HTMLButtonElement>('button.secondary')?.focus();
    }
    if (!projection && d.open) d.close();
  }, [projection]);

  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="rebuild-confirm-title"
      aria-describedby="rebuild-confirm-text"
      onClose={onCancel}
    >
      {projection ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onConfirm(projection);
          }}
        >
          <h2 id="rebuild-confirm-title">{`Rebuild ${projection}?`}</h2>
          <div id="rebuild-confirm-text">
            <p>
              This rebuilds the <strong>{projection}</strong> read model for the{' '}
              <strong>whole deployment</strong> (every tenant and project), not only the project you are
              looking at: the worker replays the entire event log into a new generation.
            </p>
            <p>
              The current generation keeps serving reads until the new one takes over; a large log takes a
              while.
            </p>
          </div>
          <div class="dialog-actions">
            <button type="button" class="secondary" onClick={onCancel}>
              Cancel
            </button>
            <button type="submit">Start rebuild</button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
