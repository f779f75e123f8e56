/** `/sign-in`: team mode's sign-in page (personal mode has no sign-in; /login is KILN_TOKEN's). */
import { SignInForm } from "../_components/sign-in-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln: sign in" };

export default async function SignIn({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  return <main className="page"><SignInForm next={typeof params.next === "string" ? params.next : undefined} /></main>;
}
