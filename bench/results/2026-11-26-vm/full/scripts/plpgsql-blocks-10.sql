SELECT blocks(10, :client_id);
