import { useState } from 'react';
import { ModalFrame, type ModalFrameProps } from './ModalFrame.tsx';
import { leaveIfAgreed, UnsavedScopeContext } from './unsaved.ts';

/**
 * The modal of every screen (ModalFrame.tsx: a native <dialog> that focuses its first field and
 * hosts the notifications). Escape, × and the backdrop ask first while a form inside holds
 * unsaved text (unsaved.ts): the forms inside register under this modal, so closing it asks only
 * about them.
 */
export function Modal({ onClose, children, ...frame }: ModalFrameProps) {
  const [scope] = useState(() => ({}));
  return (
    <ModalFrame {...frame} onClose={() => leaveIfAgreed(scope, onClose)}>
      <UnsavedScopeContext.Provider value={scope}>{children}</UnsavedScopeContext.Provider>
    </ModalFrame>
  );
}
