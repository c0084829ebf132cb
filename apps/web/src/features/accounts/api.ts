import type { AuthMeEmailBody, ForgotPasswordBody, LoginBody, LoginResponse, MessageResponse, RegisterBody } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const login = (body: LoginBody) => api<LoginResponse>('/api/user/login', { method: 'POST', body });
/** An account that came from the game (AuthMe) without an address: the address, with the name and password again. */
export const giveGameAccountEmail = (body: AuthMeEmailBody) => api<MessageResponse>('/api/authme/email', { method: 'POST', body });
export const register = (body: RegisterBody) => api<MessageResponse>('/api/user/register', { method: 'POST', body });
export const forgotPassword = (body: ForgotPasswordBody) => api<MessageResponse>('/api/user/forgot-password', { method: 'POST', body });
export const resendConfirmation = (body: ForgotPasswordBody) =>
  api<MessageResponse>('/api/user/resend-confirmation', { method: 'POST', body });
/** Whether a reset link is still good, without using it (400 reset_link_invalid when not). */
export const checkResetLink = (token: string) => api<MessageResponse>(`/api/user/reset-password/${encodeURIComponent(token)}`);
export const resetPassword = (token: string, newPassword: string) =>
  api<MessageResponse>(`/api/user/reset-password/${encodeURIComponent(token)}`, { method: 'POST', body: { new_password: newPassword } });
