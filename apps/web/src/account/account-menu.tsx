import * as Menu from '@radix-ui/react-dropdown-menu';
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';

type Me = NonNullable<RouterOutputs['auth']['me']>;

/**
 * The account menu at the top right (UI.md): who is signed in, their connected agents (API keys
 * and OAuth sign-ins), and Sign out. A WAI-ARIA menu button through Radix, like "Document actions".
 */
export function AccountMenu({ user }: { user: Me }) {
  const navigate = useNavigate();
  const signOut = useMutation(
    trpc.auth.logout.mutationOptions({
      // Signed out either way as far as this tab goes: the server revoked the session, or the
      // cookie is already gone; nothing of this account's may stay in the cache.
      onSettled: async () => {
        queryClient.clear();
        await navigate('/signin');
      },
    }),
  );
  return (
    <div className="user">
      <Menu.Root modal={false}>
        <Menu.Trigger className="button account-trigger">
          <span className="visually-hidden">Account: </span>
          <span className="user-name">{user.name}</span> <span aria-hidden="true">▾</span>
        </Menu.Trigger>
        {/* No portal: the menu stays inside the header's landmark. */}
        <Menu.Content className="menu" align="end" sideOffset={4}>
          <Menu.Label className="menu-label">
            <span className="user-name">{user.name}</span>
            {user.email && <span className="small muted account-email">{user.email}</span>}
          </Menu.Label>
          <Menu.Separator className="menu-separator" />
          <Menu.Item asChild className="menu-item">
            <Link to="/account/agents">Connected agents</Link>
          </Menu.Item>
          <Menu.Item className="menu-item" disabled={signOut.isPending} onSelect={() => signOut.mutate()}>
            Sign out
          </Menu.Item>
        </Menu.Content>
      </Menu.Root>
    </div>
  );
}
