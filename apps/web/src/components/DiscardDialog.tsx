import { useState } from 'react';
import { ModalFrame } from './ModalFrame.tsx';

/**
 * The question of unsaved.ts, in the site's own modal frame, above any modal already open. A bare
 * frame (not Modal.tsx, which asks this very question before it closes): closing it means «Остаться».
 */
function DiscardDialog({ answer }: { answer: (leave: boolean) => void }) {
  const [open, setOpen] = useState(true);
  const close = (leave: boolean) => {
    setOpen(false);
    answer(leave);
  };
  return (
    <ModalFrame open={open} title="Уйти без сохранения?" onClose={() => close(false)}>
      <div className="stack">
        <p>Введённый текст не сохранён и пропадёт.</p>
        <div className="form-actions">
          <button type="button" className="btn" data-autofocus onClick={() => close(false)}>
            Остаться
          </button>
          <button type="button" className="btn btn-danger" onClick={() => close(true)}>
            Не сохранять
          </button>
        </div>
      </div>
    </ModalFrame>
  );
}

export async function askDiscard(): Promise<boolean> {
  // Imported here, not at the top: in the browser it is the app's own chunk already, and the
  // server, which draws forms (entry-server.tsx) but never asks, does not load React's client.
  const { createRoot } = await import('react-dom/client');
  return new Promise((resolve) => {
    const host = document.createElement('div');
    document.body.append(host);
    const root = createRoot(host);
    root.render(
      <DiscardDialog
        answer={(leave) => {
          // Unmounted after the answer is handled, so focus returns where it was.
          setTimeout(() => {
            root.unmount();
            host.remove();
          });
          resolve(leave);
        }}
      />,
    );
  });
}
