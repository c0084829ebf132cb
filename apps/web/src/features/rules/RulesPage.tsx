import { useTitle } from '../../providers/title.ts';

export default function RulesPage() {
  useTitle('Правила');
  return (
    <div className="stack">
      <header className="page-head">
        <h1>Правила</h1>
        <p>Играя на сервере, вы соглашаетесь с этими правилами. За нарушения — предупреждение, мут или бан.</p>
      </header>
      <section className="card" aria-labelledby="basic-h">
        <h2 id="basic-h">Основные правила</h2>
        <ol>
          <li>Уважайте других игроков и администрацию.</li>
          <li>Запрещены оскорбления и любая дискриминация.</li>
          <li>Запрещены спам и флуд в чате.</li>
        </ol>
      </section>
      <section className="card" aria-labelledby="tech-h">
        <h2 id="tech-h">Технические правила</h2>
        <ol>
          <li>Запрещены читы и сторонние программы, дающие преимущество.</li>
          <li>Запрещена продажа аккаунтов и игровых ценностей.</li>
        </ol>
      </section>
    </div>
  );
}
