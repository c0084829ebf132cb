/**
 * Puts `text` on the clipboard: the asynchronous Clipboard API where the page may use it (HTTPS or
 * localhost, a user gesture), else the old selection + execCommand('copy') that plain-HTTP sites
 * and older browsers still allow. Resolves false when neither worked.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (window.isSecureContext && navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (permissions, no focus): try the old way below.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  // Off screen, and large enough text that iOS does not zoom in on it.
  area.style.cssText = 'position:fixed;top:0;left:-9999px;opacity:0;font-size:16px';
  const focused = document.activeElement as HTMLElement | null;
  document.body.append(area);
  area.select();
  area.setSelectionRange(0, text.length);
  let ok: boolean;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  focused?.focus({ preventScroll: true });
  return ok;
}
