/** Spec 01 Authentication rule 7: every effective actor of the operator API is this one. */
export const OPERATOR_ACTOR = 'dashboard-operator';
export const OPERATOR_ROLE = 'operator';
