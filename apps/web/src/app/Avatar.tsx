import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { fetchOwnSkin, ownHeadUrl, ownSkinKey } from '../features/skins/api.ts';

/**
 * The logged-in player's head from the skin service; the first letter when it cannot be loaded.
 * It only watches the skin query (never fetches it): once the profile has loaded the skin or an
 * upload has replaced it, the URL carries the skin's version, so a new skin shows at once and an
 * unchanged one is served from the browser's cache.
 */
export function Avatar({ username, size = 32, src }: { username: string; size?: number; src?: string }) {
  const skin = useQuery({ queryKey: ownSkinKey(username), queryFn: fetchOwnSkin, enabled: false });
  const url = src ?? ownHeadUrl(size * 2, skin.data?.version);
  const [failed, setFailed] = useState<string | null>(null);
  if (failed === url) {
    return (
      <span className="avatar avatar-fallback" style={{ width: size, height: size, fontSize: size * 0.5 }} aria-hidden="true">
        {username.slice(0, 1).toUpperCase()}
      </span>
    );
  }
  return (
    <img className="avatar pixelated" src={url} width={size} height={size} alt="" data-testid="avatar" onError={() => setFailed(url)} />
  );
}
