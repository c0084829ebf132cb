import type { SkinModel } from '@kubik/contract';
import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import type * as Skinview from 'skinview3d';
import { drawCape } from './cape.ts';

/** Spec §9: the preview is 180×270, field of view 50, zoom 0.9, camera distance 10…256. */
export const PREVIEW_WIDTH = 180;
export const PREVIEW_HEIGHT = 270;
const FOV = 50;
const ZOOM = 0.9;
const MIN_DISTANCE = 10;
const MAX_DISTANCE = 256;

/** Cape and elytra share the back, so at most one is shown (skinview3d's backEquipment). */
export type BackEquipment = 'cape' | 'elytra' | null;

export interface SkinViewerHandle {
  /** Limbs, wings and cape back to the rest pose, the player facing front, the camera where it started. */
  resetPose(): void;
  /** Turns the player about the vertical axis, for those who cannot drag. */
  rotate(radians: number): void;
}

interface SkinViewerProps {
  skinUrl: string;
  model: SkinModel;
  innerLayer: boolean;
  outerLayer: boolean;
  back: BackEquipment;
  /** The player's cape texture (/textures/<hash>); without one the site's own drawn cape is shown on the back. */
  capeUrl?: string | null;
  walking: boolean;
  label: string;
  ref?: Ref<SkinViewerHandle>;
}

type Lib = typeof Skinview;
type Viewer = Skinview.SkinViewer;

const TEXTS = {
  loading: 'Загрузка предпросмотра...',
  noWebgl: 'Предпросмотр недоступен: браузер не поддерживает WebGL.',
  noLibrary: 'Не удалось загрузить предпросмотр. Обновите страницу.',
  noImage: 'Не удалось загрузить скин для предпросмотра.',
  badSize: (size: string) => `Скин не подходит для предпросмотра: размер ${size}. Нужен 64×64 или 64×32.`,
} as const;

/** skinview-utils throws 'Bad skin size: {w}x{h}' (spec §5) for images neither square nor 2:1. */
function describe(error: unknown): string {
  const size = error instanceof Error ? /^Bad skin size: (\d+x\d+)/.exec(error.message)?.[1] : undefined;
  return size ? TEXTS.badSize(size.replace('x', '×')) : TEXTS.noImage;
}

/**
 * The 3D player (skinview3d on three.js). The library is imported when the viewer mounts, so it
 * is a chunk of its own that only the pages showing a skin download. The library itself does
 * what spec §4–§5 ask of a skin: legacy 64×32 skins are converted to the square layout with the
 * limbs mirrored, opaque outer layers are cleared, and a bad size throws 'Bad skin size'. For
 * capes it accepts 2:1, 22:17 and 46:22 where the spec says 46:23; we follow the library, which
 * matches the real texture (the elytra region is 46×22). Our own cape is 64×32 anyway.
 */
export function SkinViewer({ skinUrl, model, innerLayer, outerLayer, back, capeUrl = null, walking, label, ref }: SkinViewerProps) {
  const box = useRef<HTMLDivElement>(null);
  const [loaded, setLoaded] = useState<{ lib: Lib; viewer: Viewer } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef({ model });

  // Each mount gets a canvas of its own: a disposed renderer's WebGL context cannot be reused.
  useEffect(() => {
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', label);
    canvas.dataset.testid = 'skin-canvas';
    box.current?.appendChild(canvas);
    let gone = false;
    let viewer: Viewer | null = null;
    import('skinview3d').then(
      (lib) => {
        if (gone) return;
        try {
          viewer = new lib.SkinViewer({
            canvas,
            width: PREVIEW_WIDTH,
            height: PREVIEW_HEIGHT,
            fov: FOV,
            zoom: ZOOM,
            preserveDrawingBuffer: true,
          });
        } catch {
          setError(TEXTS.noWebgl);
          return;
        }
        viewer.controls.minDistance = MIN_DISTANCE;
        viewer.controls.maxDistance = MAX_DISTANCE;
        viewer.controls.enablePan = false;
        setLoaded({ lib, viewer });
      },
      () => {
        if (!gone) setError(TEXTS.noLibrary);
      },
    );
    return () => {
      gone = true;
      if (viewer) {
        viewer.dispose();
        viewer.renderer.forceContextLoss();
      }
      canvas.remove();
      setLoaded(null);
    };
  }, [label]);

  useEffect(() => {
    latest.current.model = model;
    if (loaded) loaded.viewer.playerObject.skin.modelType = model;
  }, [loaded, model]);

  useEffect(() => {
    if (!loaded) return;
    let current = true;
    loaded.viewer.loadSkin(skinUrl, { model: latest.current.model }).then(
      () => {
        if (current) setError(null);
      },
      (err: unknown) => {
        if (current) setError(describe(err));
      },
    );
    return () => {
      current = false;
    };
  }, [loaded, skinUrl]);

  useEffect(() => {
    if (!loaded) return;
    loaded.viewer.playerObject.skin.setInnerLayerVisible(innerLayer);
    loaded.viewer.playerObject.skin.setOuterLayerVisible(outerLayer);
  }, [loaded, innerLayer, outerLayer]);

  useEffect(() => {
    if (!loaded) return;
    const { viewer } = loaded;
    if (!back) {
      viewer.loadCape(null);
      return;
    }
    if (!capeUrl) {
      viewer.loadCape(drawCape(), { backEquipment: back });
      return;
    }
    // A chosen cape is drawn as a cape or, spread on the wings, as elytra (spec §4).
    let current = true;
    viewer.loadCape(capeUrl, { backEquipment: back }).catch(() => {
      if (current) viewer.loadCape(null);
    });
    return () => {
      current = false;
    };
  }, [loaded, back, capeUrl]);

  useEffect(() => {
    if (!loaded) return;
    loaded.viewer.animation = walking ? new loaded.lib.WalkingAnimation() : null;
  }, [loaded, walking]);

  useImperativeHandle(
    ref,
    () => ({
      resetPose() {
        if (!loaded) return;
        const { viewer } = loaded;
        viewer.playerObject.resetJoints();
        viewer.playerWrapper.rotation.set(0, 0, 0);
        viewer.resetCameraPose();
      },
      rotate(radians: number) {
        loaded?.viewer.playerWrapper.rotateY(radians);
      },
    }),
    [loaded],
  );

  return (
    <div className="skin-viewer" style={{ width: PREVIEW_WIDTH, height: PREVIEW_HEIGHT }} aria-busy={!loaded && !error}>
      <div ref={box} className="skin-viewer-canvas" />
      {!loaded && !error && (
        <p className="skin-viewer-status" role="status">
          {TEXTS.loading}
        </p>
      )}
      {error && (
        <p className="skin-viewer-status skin-viewer-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
