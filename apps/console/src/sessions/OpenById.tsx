import { useState } from 'preact/hooks';
import { href, navigate } from '../router.js';

/** Opens a session directly (also the way in without an analytics key). */
export function OpenById({ projectId, compact = false }: { projectId: string; compact?: boolean }) {
  const [id, setId] = useState('');
  return (
    <form
      class={compact ? 'open-by-id compact' : 'open-by-id'}
      aria-label="Open a session by id"
      onSubmit={(e) => {
        e.preventDefault();
        const v = id.trim();
        if (v) navigate(href(['p', projectId, 'sessions', v]));
      }}
    >
      <label class="inline" for={compact ? 'open-id-compact' : 'open-id'}>
        Session id
      </label>
      <input
        id={compact ? 'open-id-compact' : 'open-id'}
        value={id}
        onInput={(e) => setId((e.target as HTMLInputElement).value)}
        placeholder="sess_… or any session id"
        autoComplete="off"
        spellcheck={false}
      />
      <button type="submit" class="secondary" disabled={!id.trim()}>
        Open
      </button>
    </form>
  );
}
