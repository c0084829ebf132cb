import { Placeholder } from '../../components/Placeholder.tsx';

export default function Page() {
  return <Placeholder title="Журнал изменений" />;
}
