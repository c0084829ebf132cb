import { lazy, useState, type ComponentType } from 'react';

/**
 * lazy(), and preload() for what the browser shows first (app/first-page.ts): once its module is
 * in, the component renders at once instead of suspending for a moment — no loading text replaced
 * a moment later, and nothing below it pushed down when it arrives.
 */
export function lazyPage(load: () => Promise<{ default: ComponentType }>) {
  let loaded: ComponentType | undefined;
  const remember = <M extends { default: ComponentType }>(module: M) => {
    loaded = module.default;
    return module;
  };
  const Lazy = lazy(() => load().then(remember));
  function Page() {
    // Chosen once per mount: switching from Lazy to the loaded component later would remount the page.
    const [Component] = useState(() => loaded ?? Lazy);
    return <Component />;
  }
  Page.preload = () => load().then(remember);
  return Page;
}
