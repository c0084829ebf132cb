import type { AdminDashboard } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const DASHBOARD_KEY = ['admin', 'dashboard'] as const;
export const fetchDashboard = () => api<AdminDashboard>('/api/admin/dashboard');
