SELECT blocks(100, :client_id);
