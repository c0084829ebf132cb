// No zod here: the account pages' chunk imports this file alone ('@kubik/contract/local-path').

/**
 * A page of this site to send a player back to («/shop», «/cart?x=1»): a path, never another
 * site's address (no «//host», no backslash, no spaces or control characters).
 */
// eslint-disable-next-line no-control-regex -- a path to send a player to never holds control characters
export const LOCAL_PATH_RE = /^\/(?![/\\])[^\s\\\u0000-\u001f\u007f]*$/;
export const LOCAL_PATH_MAX = 200;

export const isLocalPath = (path: unknown): path is string =>
  typeof path === 'string' && path.length <= LOCAL_PATH_MAX && LOCAL_PATH_RE.test(path);
