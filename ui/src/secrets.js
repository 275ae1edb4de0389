// Moving a credential written into a definition into a secret of the space. The server finds such
// values (a `literal_secret` warning or problem, with its JSON pointer); this only offers the move
// beside them. Creating a secret is for admins: other roles get no offer (the API would refuse it).
import { ApiError, call, client, inSpace } from "./api.js";

export const SECRET_NAME = /^[a-z0-9_]{1,64}$/;

// The function the editor calls to keep a value as a secret, or null when the caller may not.
export async function secretKeeper() {
  let role = null;
  try {
    role = (await call(client.GET("/api/v1/spaces/{space_id}", { params: { path: inSpace() } }))).role;
  } catch {
    return null;
  }
  if (role !== "admin" && role !== "owner") return null;
  return async (name, value) => {
    const path = { params: { path: inSpace({ name }) } };
    // PUT replaces an existing secret, which other automations may use: a taken name is refused here.
    const taken = await call(client.GET("/api/v1/spaces/{space_id}/secrets/{name}", path)).then(
      () => true,
      (error) => {
        if (error instanceof ApiError && error.status === 404) return false;
        throw error;
      },
    );
    if (taken) throw new ApiError(409, { error: { code: "secret_exists", message: `A secret named ${name} exists already: choose another name.` } });
    return call(client.PUT("/api/v1/spaces/{space_id}/secrets/{name}", { ...path, body: { value, description: "Moved out of an automation definition" } }));
  };
}

// A name to start from: the step's id and the field's key, lower-case with underscores.
export function suggestedName(definition, pointer) {
  const parts = pointer.split("/").slice(1);
  const step = parts[0] === "plan" && definition.plan ? definition.plan[Number(parts[1])] : null;
  const words = [step && step.step_id, parts[parts.length - 1]].filter(Boolean).join("_");
  return (words.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "credential").slice(0, 64);
}
