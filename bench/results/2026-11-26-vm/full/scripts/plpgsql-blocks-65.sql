SELECT blocks(65, :client_id);
