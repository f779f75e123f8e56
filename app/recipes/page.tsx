/** `/recipes`: every project and user-wide recipe. */
import { RecipeList } from "./_components/recipe-list";

export default function RecipesPage() {
  return <RecipeList />;
}
