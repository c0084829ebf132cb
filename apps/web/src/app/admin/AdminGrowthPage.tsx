import { AdminReferrals } from '../../features/referrals/AdminReferrals.tsx';
import { AdminVotes } from '../../features/votes/AdminVotes.tsx';

/** Админ-панель → Голосование: the tops and prizes (votes) and the referral rules (referrals), one screen for growth. */
export default function AdminGrowthPage() {
  return (
    <div className="stack">
      <AdminVotes />
      <AdminReferrals />
    </div>
  );
}
