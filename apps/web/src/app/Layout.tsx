import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { Loading } from '../components/States.tsx';
import { AuthProvider } from './auth.tsx';
import { Footer } from './Footer.tsx';
import { Header } from './Header.tsx';

export function Layout() {
  return (
    <AuthProvider>
      <a href="#content" className="skip-link">
        Перейти к содержимому
      </a>
      <Header />
      <main id="content" tabIndex={-1}>
        <div className="container">
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </div>
      </main>
      <Footer />
    </AuthProvider>
  );
}
