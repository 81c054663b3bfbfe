"""What a traced run records and changes through the model's hook points, below the translator that runs them:
interventions (hooks that change one run) and the logit lens (each residual point read through the output)."""
