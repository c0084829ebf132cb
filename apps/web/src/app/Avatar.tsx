import { useState } from 'react';

/** A player's head from the skin service; the first letter when it cannot be loaded. */
export function Avatar({ username, size = 32, src }: { username: string; size?: number; src?: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) {
    return (
      <span className="avatar avatar-fallback" style={{ width: size, height: size, fontSize: size * 0.5 }} aria-hidden="true">
        {username.slice(0, 1).toUpperCase()}
      </span>
    );
  }
  return (
    <img
      className="avatar pixelated"
      src={src ?? `/api/user/head?size=${size * 2}`}
      width={size}
      height={size}
      alt=""
      onError={() => setFailed(true)}
    />
  );
}
