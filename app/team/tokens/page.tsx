/** `/team/tokens`: personal access tokens, and signing out everywhere. */
import { Tokens } from "../_components/tokens";

export default function TokensPage() {
  return <Tokens />;
}
