import { Suspense, type ReactNode } from 'react';
import { Loading } from '../components/States.tsx';
import { AuthProvider } from '../providers/auth.tsx';
import { Footer } from './Footer.tsx';
import { Header } from './Header.tsx';

export function Layout({ children }: { children: ReactNode }) {
  return (
    <AuthProvider>
      <a href="#content" className="skip-link">
        Перейти к содержимому
      </a>
      <Header />
      <main id="content" tabIndex={-1}>
        <div className="container">
          <Suspense fallback={<Loading />}>{children}</Suspense>
        </div>
      </main>
      <Footer />
    </AuthProvider>
  );
}
