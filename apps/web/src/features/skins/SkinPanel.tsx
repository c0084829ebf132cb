import { SKIN_MAX_BYTES, SKIN_TEXTS, type SkinInfo, type SkinModel } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { z } from 'zod';
import { Form, FormErrors, SubmitButton, useSchemaForm, type ServerErrorRules } from '../../components/form/Form.tsx';
import { FileField } from '../../components/form/fields.tsx';
import { requiredFile } from '../../components/form/file-schema.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { ApiError } from '../../lib/api.ts';
import { Empty, Loading } from '../../components/States.tsx';
import { fetchOwnSkin, ownSkinKey, saveSkinModel, uploadSkin } from './api.ts';
import { CapePicker, chosenCape, useMyCapes } from './CapePicker.tsx';
import { SkinViewer, type BackEquipment, type SkinViewerHandle } from './SkinViewer.tsx';
import './skins.css';
import { FieldShell } from '../../components/form/FieldShell.tsx';

const TURN = Math.PI / 6;

const SkinUpload = z.object({ skin: requiredFile(SKIN_TEXTS.noFile.replace(' в поле «skin»', '')) });

/** A file the server would refuse for its type or size, refused as it is picked (spec §5). */
const refuseSkin = (file: File) =>
  file.type !== 'image/png' ? SKIN_TEXTS.pickPng : file.size > SKIN_MAX_BYTES ? SKIN_TEXTS.tooBig : undefined;

/** Spec §8: «Ошибка загрузки скина.», with the server's reason beside the file field when it gave one. */
const UPLOAD_ERRORS: ServerErrorRules = { formText: () => SKIN_TEXTS.uploadFailed };
const uploadFailed = (err: unknown) =>
  err instanceof ApiError && err.message && err.status >= 400 && err.status < 500
    ? new ApiError(err.status, `${SKIN_TEXTS.uploadFailed} ${err.message}`, err.code, 'skin')
    : err;

/** The logged-in player's skin block, once their skin has loaded. */
export function OwnSkinPanel({ username }: { username: string }) {
  const skin = useQuery({ queryKey: ownSkinKey(username), queryFn: fetchOwnSkin });
  if (skin.isPending) {
    return (
      <section className="card skin-panel">
        <Loading text="Загрузка скина..." />
      </section>
    );
  }
  if (skin.isError) {
    return (
      <section className="card skin-panel">
        <Empty>
          <p>Не удалось загрузить скин.</p>
          <button type="button" className="btn btn-small" onClick={() => void skin.refetch()}>
            Повторить
          </button>
        </Empty>
      </section>
    );
  }
  return <SkinPanel username={username} skin={skin.data} />;
}

/** The left block of the profile (spec §2, §4): the 3D preview, its switches and the skin upload. */
export function SkinPanel({ username, skin }: { username: string; skin: SkinInfo }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const viewer = useRef<SkinViewerHandle>(null);
  const ids = useId();
  const form = useSchemaForm(SkinUpload, { defaultValues: { skin: null } });
  const file = form.watch('skin');
  // The switch shows the saved model until the player flips it; a new upload brings its own.
  const [previewModel, setPreviewModel] = useState<{ version: string; model: SkinModel } | null>(null);
  const model = previewModel?.version === skin.version ? previewModel.model : skin.model;
  const [innerLayer, setInnerLayer] = useState(true);
  const [outerLayer, setOuterLayer] = useState(true);
  const [back, setBack] = useState<BackEquipment>(null);
  const [walking, setWalking] = useState(false);
  const cape = chosenCape(useMyCapes().data);

  async function upload({ skin: chosen }: z.output<typeof SkinUpload>) {
    const { message: _message, ...saved } = await uploadSkin(chosen).catch((err: unknown) => Promise.reject(uploadFailed(err)));
    queryClient.setQueryData(ownSkinKey(username), saved);
    setPreviewModel(null);
    form.reset();
    notify('success', SKIN_TEXTS.uploaded);
  }

  const saveModel = useMutation({
    mutationFn: saveSkinModel,
    onSuccess: (info) => {
      queryClient.setQueryData(ownSkinKey(username), info);
      notify('success', SKIN_TEXTS.modelSaved);
    },
    onError: (err) => {
      setPreviewModel(null);
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось сохранить модель');
    },
  });

  function chooseModel(next: SkinModel) {
    setPreviewModel({ version: skin.version, model: next });
    if (skin.custom) saveModel.mutate(next);
  }

  function resetPose() {
    setWalking(false);
    viewer.current?.resetPose();
  }

  return (
    <section className="card skin-panel" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Скин</h2>
      <div className="skin-stage">
        <SkinViewer
          ref={viewer}
          skinUrl={skin.skin_url}
          model={model}
          innerLayer={innerLayer}
          outerLayer={outerLayer}
          back={back}
          capeUrl={cape?.url ?? null}
          walking={walking}
          label={`Трёхмерный предпросмотр скина игрока ${username}`}
        />
        <div className="skin-turn row">
          <button type="button" className="btn btn-small" aria-label="Повернуть влево" onClick={() => viewer.current?.rotate(-TURN)}>
            ⟲
          </button>
          <button type="button" className="btn btn-small" onClick={resetPose}>
            Сбросить позу
          </button>
          <button type="button" className="btn btn-small" aria-label="Повернуть вправо" onClick={() => viewer.current?.rotate(TURN)}>
            ⟳
          </button>
        </div>
      </div>

      <fieldset className="skin-options">
        <legend>Модель рук</legend>
        <label className="checkbox">
          <input
            type="radio"
            name={`${ids}-model`}
            value="default"
            checked={model === 'default'}
            onChange={() => chooseModel('default')}
            disabled={saveModel.isPending}
          />
          Обычные (4 пикселя)
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name={`${ids}-model`}
            value="slim"
            checked={model === 'slim'}
            onChange={() => chooseModel('slim')}
            disabled={saveModel.isPending}
          />
          Тонкие (3 пикселя)
        </label>
        <p className="hint">
          {skin.custom ? 'Модель сохраняется и видна в игре.' : 'У стандартного скина модель меняется только в предпросмотре.'}
        </p>
      </fieldset>

      <fieldset className="skin-options">
        <legend>Показать</legend>
        <label className="checkbox">
          <input type="checkbox" checked={innerLayer} onChange={(e) => setInnerLayer(e.target.checked)} />
          Основной слой
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={outerLayer} onChange={(e) => setOuterLayer(e.target.checked)} />
          Второй слой (шапка, куртка)
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={walking} onChange={(e) => setWalking(e.target.checked)} />
          Ходьба
        </label>
        <FieldShell id={`${ids}-back`} label="На спине">
          <select id={`${ids}-back`} value={back ?? ''} onChange={(e) => setBack((e.target.value || null) as BackEquipment)}>
            <option value="">Ничего</option>
            <option value="cape">{cape ? `Плащ «${cape.title}»` : 'Плащ'}</option>
            <option value="elytra">Элитры</option>
          </select>
        </FieldShell>
      </fieldset>

      <CapePicker
        onChosen={(chosen) => {
          // A new cape is shown on the back at once (as elytra if those were on).
          if (chosen && back === null) setBack('cape');
        }}
      />

      <Form form={form} onSubmit={upload} serverErrors={UPLOAD_ERRORS} className="form skin-upload">
        <FileField
          name="skin"
          label="Файл скина (PNG)"
          accept="image/png"
          refuse={refuseSkin}
          hint="64×64 или 64×32 пикселя (HD — до 512), не больше 256 КБ."
        />
        <FormErrors fields={false} />
        <SubmitButton label="Загрузить скин" pendingLabel="Загружаем…" className="btn btn-primary btn-block" disabled={!file} />
      </Form>
    </section>
  );
}
