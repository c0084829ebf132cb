import { useState } from 'react';

/**
 * The first card's image, the page's largest paint, loads at once and first (boot.ts has usually
 * asked for it already). The others are lazy: on a wide screen the browser still fetches the rest
 * of the first row as soon as it is laid out, and on a phone, where they are below the fold, they
 * do not take bandwidth from the first.
 */
const EAGER_CARDS = 1;

interface ImageProps {
  src: string;
  className: string;
  /** The card's place in the feed; none for the opened item. */
  index?: number;
}

export function NewsImage({ src, className, index }: ImageProps) {
  const [broken, setBroken] = useState(false);
  if (broken) return null;
  const card = index !== undefined;
  return (
    <img
      className={className}
      src={src}
      alt=""
      // A card's box is 16:9 whatever the image (the CSS sizes it), so nothing moves when it arrives.
      width={card ? 640 : undefined}
      height={card ? 360 : undefined}
      loading={card && index >= EAGER_CARDS ? 'lazy' : 'eager'}
      fetchPriority={index === 0 ? 'high' : undefined}
      decoding="async"
      onError={() => setBroken(true)}
    />
  );
}
